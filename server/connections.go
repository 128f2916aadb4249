package server

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// HTTPServer returns the http.Server to serve s with: every connection is
// bounded in time and header bytes by the Config. Its handler is s; it
// tells s's connections (Listener) when each one becomes idle or busy.
//
// The timeouts do not cut websockets: net/http clears a connection's
// deadlines when the websocket transport takes it over, and the websocket
// has bounds of its own.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ConnState:         s.conns.changed,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
	}
}

// Listener counts every connection accepted on ln against its client's
// share (Config.MaxConnectionsPerClient) and the server's total
// (MaxConnections), websockets included until they close. A connection
// that does not fit is not served:
//
//   - a client at its share has its own oldest idle keep-alive closed to
//     make room; with none idle, the new connection is answered 429 and
//     closed;
//   - at the total, the oldest idle keep-alive of the client that holds
//     the most connections is closed to make room; with none idle
//     anywhere, the oldest silent connection (accepted, no request yet)
//     of the client that holds the most, if it holds more than the
//     newcomer's client would; else the new connection is answered 503
//     and closed.
//
// Either answer has Retry-After and a GraphQL error body, and is written
// beside the accept loop, which never waits for a peer. Serve with
// HTTPServer, which reports the connections' states: without it no
// connection is known to be idle, so none is closed to make room, and
// MaxIdleConnectionsPerClient is not applied.
func (s *Server) Listener(ln net.Listener) net.Listener {
	return &shareListener{Listener: ln, conns: s.conns}
}

type shareListener struct {
	net.Listener
	conns *connections
}

// Accept returns the next connection that fits; it answers and closes
// those that do not. It returns the error of the listener's Accept, so a
// closed listener stops it at once.
func (l *shareListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.conns.admit(c); tc != nil {
			return tc, nil
		}
	}
}

// connections counts the open connections per client and knows which
// are idle, oldest first, to close them when a bound needs room.
type connections struct {
	pool       *quota.Pool // apierror.PoolConnections
	idleShare  int         // MaxIdleConnectionsPerClient
	ipv6Prefix int
	proxies    trustedProxies
	// refusing holds a token per refusal being written (refusalWriters).
	refusing chan struct{}

	mu      sync.Mutex
	byConn  map[net.Conn]*conn // by the connection Accept returned
	clients map[string]*clientConns

	idleClosed, evictedForClient, evictedForTotal, evictedSilent, unanswered atomic.Int64
}

// clientConns are one client's connections. Under connections.mu.
type clientConns struct {
	open   int
	idle   []*conn // waiting for their next request, oldest first
	silent []*conn // accepted, no request begun yet, oldest first
	// trim is set while a look at the client's idle connections is
	// due: when the oldest of those past its idle share is idleGrace old.
	trim *time.Timer
}

// idleGrace is how long a connection is idle before it counts against
// its client's idle share: a busy client's connections are idle between
// its requests for microseconds, and one closed then may be the one the
// client is sending its next request on (a request that, being a POST,
// it would not retry).
const idleGrace = time.Second

func newConnections(cfg Config) *connections {
	return &connections{
		pool:       quota.New(apierror.PoolConnections, int64(cfg.MaxConnectionsPerClient), int64(cfg.MaxConnections)),
		idleShare:  cfg.MaxIdleConnectionsPerClient,
		ipv6Prefix: cfg.ClientIPv6Prefix,
		proxies:    newTrustedProxies(cfg.TrustedProxies),
		refusing:   make(chan struct{}, refusalWriters),
		byConn:     map[net.Conn]*conn{},
		clients:    map[string]*clientConns{},
	}
}

// conn is an accepted connection: it gives its place back when closed.
type conn struct {
	net.Conn
	conns  *connections
	client string
	hold   *quota.Hold
	state  http.ConnState // under conns.mu
	// idleSince is when it last went idle, under conns.mu.
	idleSince time.Time
	once      sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.conns.forget(c)
		c.hold.Release()
	})
	return err
}

// admit counts c against its client's share and the total, making room
// by closing an idle connection where a bound is reached, and returns the
// connection to serve; nil when c was refused (it is being answered).
func (cs *connections) admit(c net.Conn) *conn {
	client := clientKey(c.RemoteAddr().String(), cs.ipv6Prefix)
	if cs.proxies.contains(c.RemoteAddr().String()) {
		// A proxy's connection carries the requests of many clients, and
		// its own bounds (nginx's limit_conn, its upstream keepalive)
		// share the connections between them: each is a client of its own
		// here, bounded by the total alone.
		client = "proxied " + c.RemoteAddr().String()
	}
	if victim := cs.makeRoom(client); victim != nil {
		_ = victim.Close()
	}
	hold, err := cs.pool.Take(client, 1)
	if err != nil {
		cs.refuse(c, err.(*quota.Refusal))
		return nil
	}
	tc := &conn{Conn: c, conns: cs, client: client, hold: hold, state: http.StateNew}
	cs.mu.Lock()
	cs.byConn[tc] = tc
	cc := cs.clients[client]
	if cc == nil {
		cc = &clientConns{}
		cs.clients[client] = cc
	}
	cc.open++
	cc.silent = append(cc.silent, tc)
	cs.mu.Unlock()
	return tc
}

// makeRoom picks the connection to close so that a new one of client
// fits, nil when it fits already or nothing may go: the client's own
// oldest idle one when it holds its share; else at the total the oldest
// idle one of the client that holds the most connections (and has one
// idle), or, with none idle anywhere, the oldest silent one of the client
// that holds the most, provided it holds more than client will. An idle
// keep-alive costs its client a reconnection at most; a connection silent
// since it was accepted has no request to lose, and its client holds more
// than its due.
func (cs *connections) makeRoom(client string) *conn {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cc := cs.clients[client]; cc != nil && int64(cc.open) >= cs.pool.Share() {
		if len(cc.idle) == 0 {
			return nil
		}
		cs.evictedForClient.Add(1)
		return cs.closing(cc)
	}
	if int64(len(cs.byConn)) < cs.pool.Total() {
		return nil
	}
	mine := 0
	if cc := cs.clients[client]; cc != nil {
		mine = cc.open
	}
	var idle, silent *clientConns
	for _, cc := range cs.clients {
		if len(cc.idle) > 0 && (idle == nil || cc.open > idle.open) {
			idle = cc
		}
		if len(cc.silent) > 0 && cc.open > mine+1 && (silent == nil || cc.open > silent.open) {
			silent = cc
		}
	}
	switch {
	case idle != nil:
		cs.evictedForTotal.Add(1)
		return cs.closing(idle)
	case silent != nil:
		cs.evictedSilent.Add(1)
		c := silent.silent[0]
		silent.silent = slices.Delete(silent.silent, 0, 1)
		c.state = stateClosing
		return c
	}
	return nil
}

// closing takes cc's oldest idle connection off its list, to be closed:
// no other bound picks it, and its states no longer count. Under cs.mu.
func (cs *connections) closing(cc *clientConns) *conn {
	c := cc.idle[0]
	cc.idle = slices.Delete(cc.idle, 0, 1)
	c.state = stateClosing
	return c
}

// stateClosing marks a connection picked to be closed.
const stateClosing = http.StateClosed + 1

// changed is the http.Server's ConnState: it keeps each client's idle
// connections in the order they became idle, and closes the oldest of a
// client that keeps more than its idle share.
func (cs *connections) changed(c net.Conn, state http.ConnState) {
	cs.mu.Lock()
	tc, ok := cs.byConn[c]
	if !ok {
		// A connection the http.Server wrapped (TLS), or one already
		// closed to make room.
		if nc, wraps := c.(interface{ NetConn() net.Conn }); wraps {
			tc, ok = cs.byConn[nc.NetConn()]
		}
	}
	if !ok || tc.state == stateClosing || tc.state == state {
		// The http.Server reports StateNew of a connection admit has
		// counted as new already.
		cs.mu.Unlock()
		return
	}
	cc := cs.clients[tc.client]
	switch tc.state {
	case http.StateIdle:
		cc.idle = slices.DeleteFunc(cc.idle, func(x *conn) bool { return x == tc })
	case http.StateNew:
		cc.silent = slices.DeleteFunc(cc.silent, func(x *conn) bool { return x == tc })
	}
	tc.state = state
	if state == http.StateIdle {
		tc.idleSince = time.Now()
		cc.idle = append(cc.idle, tc)
		if len(cc.idle) > cs.idleShare && cc.trim == nil {
			client := tc.client
			cc.trim = time.AfterFunc(idleGrace, func() { cs.trimIdle(client) })
		}
	}
	cs.mu.Unlock()
}

// trimIdle closes a client's oldest idle connections while it keeps more
// than its idle share of connections idle for idleGrace, and looks again
// when the next one will have been.
func (cs *connections) trimIdle(client string) {
	cs.mu.Lock()
	cc := cs.clients[client]
	if cc == nil {
		cs.mu.Unlock()
		return
	}
	cc.trim = nil
	var closing []*conn
	for len(cc.idle) > cs.idleShare {
		if wait := idleGrace - time.Since(cc.idle[0].idleSince); wait > 0 {
			cc.trim = time.AfterFunc(wait, func() { cs.trimIdle(client) })
			break
		}
		closing = append(closing, cs.closing(cc))
	}
	cs.mu.Unlock()
	for _, c := range closing {
		cs.idleClosed.Add(1)
		_ = c.Close()
	}
}

// forget drops a closed connection.
func (cs *connections) forget(c *conn) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.byConn, c)
	cc := cs.clients[c.client]
	switch c.state {
	case http.StateIdle:
		cc.idle = slices.DeleteFunc(cc.idle, func(x *conn) bool { return x == c })
	case http.StateNew:
		cc.silent = slices.DeleteFunc(cc.silent, func(x *conn) bool { return x == c })
	}
	c.state = http.StateClosed
	if cc.open--; cc.open == 0 {
		if cc.trim != nil {
			cc.trim.Stop()
		}
		delete(cs.clients, c.client)
	}
}

// ConnectionStats is what the server's connections are and what was done
// to keep them within their bounds (for metrics). Refusals are counted by
// the connections pool (Pools).
type ConnectionStats struct {
	// Open and Idle are the connections open now (websockets included),
	// and those of them waiting for their next request.
	Open, Idle int
	// IdleClosed counts the idle connections closed because their client
	// kept more than MaxIdleConnectionsPerClient idle.
	IdleClosed int64
	// EvictedForClient counts the idle connections closed to make room
	// for a new one of the same client at its share, EvictedForTotal
	// those of the largest holder closed to make room at the total, and
	// EvictedSilent the silent ones of the largest holder closed at the
	// total when none was idle.
	EvictedForClient, EvictedForTotal, EvictedSilent int64
	// Unanswered counts the connections refused while refusalWriters
	// refusals were being written: they were closed without an answer.
	Unanswered int64
}

// Connections says what the connections accepted by Listener are now,
// and what was done to them since the server was made.
func (s *Server) Connections() ConnectionStats {
	cs := s.conns
	cs.mu.Lock()
	st := ConnectionStats{Open: len(cs.byConn)}
	for _, cc := range cs.clients {
		st.Idle += len(cc.idle)
	}
	cs.mu.Unlock()
	st.IdleClosed = cs.idleClosed.Load()
	st.EvictedForClient = cs.evictedForClient.Load()
	st.EvictedForTotal = cs.evictedForTotal.Load()
	st.EvictedSilent = cs.evictedSilent.Load()
	st.Unanswered = cs.unanswered.Load()
	return st
}
