package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// wsSubprotocol is the one websocket subprotocol served: the GraphQL over
// WebSocket protocol of graphql-ws
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md).
const wsSubprotocol = "graphql-transport-ws"

// The close codes of graphql-transport-ws this server sends.
const (
	wsCloseBadRequest       websocket.StatusCode = 4400
	wsCloseUnauthorized     websocket.StatusCode = 4401
	wsCloseSubprotocol      websocket.StatusCode = 4406
	wsCloseInitTimeout      websocket.StatusCode = 4408
	wsCloseSubscriberExists websocket.StatusCode = 4409
	wsCloseTooManyInits     websocket.StatusCode = 4429
)

// ReasonSubscriptionLimit is the extensions.reason of the BAD_USER_INPUT
// error a subscribe message gets when its connection runs
// Config.WSMaxSubscriptions operations already.
const ReasonSubscriptionLimit = "SUBSCRIPTION_LIMIT_EXCEEDED"

// maxCloseReason is the longest close reason a close frame carries
// (RFC 6455: 125 bytes of payload, 2 of them the code).
const maxCloseReason = 123

// wsTransport serves GraphQL over websockets, speaking graphql-transport-ws
// strictly, as a gqlgen transport: operations run through gqlgen's
// executor, so the validation, complexity and depth limits and the time
// budget of queries apply as over HTTP. Every connection is bounded: in
// number, per client and in all (the excess is refused before the
// upgrade), in the time it may take to initialise, in message size
// (checked on the frame headers) and the time a message takes to arrive,
// in operations at once, and in how long a silent peer is kept; and every
// exit path closes its socket. Each operation is a request: it takes a
// token of its client's rate limit and holds its memory against the
// client's share for its life.
type wsTransport struct {
	s             *Server
	maxOperations int
	initTimeout   time.Duration
	pingInterval  time.Duration
	// pongTimeout is how long a peer may take to answer a ping, and to
	// take a message: past it, it is dropped as dead.
	pongTimeout time.Duration
	// maxMessage bounds a message's bytes, messageTimeout the time it
	// takes to arrive once it has begun (wsframes.go).
	maxMessage     int64
	messageTimeout time.Duration
	origins        []string
	logger         *slog.Logger
	recoverFunc    graphql.RecoverFunc

	// What was refused or closed by a bound that is not a quota.Pool's
	// (the pools count their own), for WebsocketRefusals.
	tooBig, tooSlow, rateLimited, overOperations atomic.Int64
}

// The reasons WebsocketRefusals counts.
const (
	// WSRefusedMessageTooBig: sockets closed (1009) for a frame header
	// that took its message past WSMaxMessageBytes.
	WSRefusedMessageTooBig = "MESSAGE_TOO_BIG"
	// WSRefusedMessageTooSlow: sockets closed (1008) for a message that
	// took longer than WSMessageTimeout to arrive.
	WSRefusedMessageTooSlow = "MESSAGE_TOO_SLOW"
	// WSRefusedRateLimited: operations refused by the rate limit.
	WSRefusedRateLimited = "RATE_LIMITED"
	// WSRefusedSubscriptionLimit: operations refused past
	// WSMaxSubscriptions on their socket.
	WSRefusedSubscriptionLimit = ReasonSubscriptionLimit
)

// WebsocketRefusals counts, by reason, what websockets were refused since
// the server started besides the refusals of Pools (the websockets'
// shares and total, the memory of their operations): for metrics.
func (s *Server) WebsocketRefusals() map[string]int64 {
	return map[string]int64{
		WSRefusedMessageTooBig:     s.ws.tooBig.Load(),
		WSRefusedMessageTooSlow:    s.ws.tooSlow.Load(),
		WSRefusedRateLimited:       s.ws.rateLimited.Load(),
		WSRefusedSubscriptionLimit: s.ws.overOperations.Load(),
	}
}

var _ graphql.Transport = (*wsTransport)(nil)

// newWebsocketTransport returns the websocket transport with the limits of
// the server's Config.
func (s *Server) newWebsocketTransport() *wsTransport {
	cfg := s.cfg
	var origins []string
	for _, o := range cfg.CORSOrigins {
		if o == "*" {
			o = "*://*"
		}
		origins = append(origins, o)
	}
	return &wsTransport{
		s:              s,
		maxOperations:  cfg.WSMaxSubscriptions,
		initTimeout:    cfg.WSInitTimeout,
		pingInterval:   cfg.WSPingInterval,
		pongTimeout:    cfg.WSPongTimeout,
		maxMessage:     cfg.WSMaxMessageBytes,
		messageTimeout: cfg.WSMessageTimeout,
		origins:        origins,
		logger:         cfg.Logger,
		recoverFunc:    recoverFunc(cfg.Logger),
	}
}

// wsOperationOverhead is what an operation holds besides its message: as
// a request does (requestOverhead), its goroutines' stacks, its decoded
// parameters, the buffers of its answers.
const wsOperationOverhead = requestOverhead

// Supports implements graphql.Transport: serveGraphQL sends it every
// upgrade request.
func (t *wsTransport) Supports(r *http.Request) bool { return r.Header.Get("Upgrade") != "" }

// Do implements graphql.Transport: it upgrades the request and serves the
// connection until it closes. r's context ends when the server closes.
func (t *wsTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	// The client's share of the websockets, then the server's total: a
	// refused client may try again once some have closed; browsers see a
	// failed handshake either way.
	client := t.s.client(r)
	slot, err := t.s.websockets.Take(client, 1)
	if err != nil {
		t.s.refuse(w, r, err)
		return
	}
	defer slot.Release()

	guard := &wsGuardWriter{ResponseWriter: w, limit: t.maxMessage, timeout: t.messageTimeout}
	ws, err := websocket.Accept(guard, r, &websocket.AcceptOptions{
		Subprotocols:   []string{wsSubprotocol},
		OriginPatterns: t.origins,
		// Without compression a frame's length is its message's bytes,
		// which the guard checks on the header.
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return // Accept answered: 400 for a bad handshake, 403 for a foreign origin
	}
	defer ws.CloseNow()
	if ws.Subprotocol() != wsSubprotocol {
		// As graphql-ws's own server does: the upgrade succeeds (RFC 6455
		// lets a server select no subprotocol) and the socket is closed
		// with the protocol's code, which clients can show.
		_ = ws.Close(wsCloseSubprotocol, "Subprotocol not acceptable")
		return
	}
	ws.SetReadLimit(t.maxMessage) // what the guard checks already

	c := &wsConn{t: t, ws: ws, guard: guard.conn, exec: exec, header: r.Header, client: client, ops: map[string]*wsOperation{}}
	c.serve(r.Context())
}

// wsConn is one graphql-transport-ws connection.
type wsConn struct {
	t      *wsTransport
	ws     *websocket.Conn
	guard  *wsGuardedConn // the connection under ws
	exec   graphql.GraphExecutor
	header http.Header
	client string // the upgrade request's client (Server.client)

	// closing ends when the connection does.
	closing context.Context
	// initialised is set when connection_init arrives; the init timer
	// reads it.
	initialised atomic.Bool
	// opsCtx is the context operations start from: closing, with the
	// bearer token of the init payload. Only the read loop uses it.
	opsCtx context.Context

	mu  sync.Mutex
	ops map[string]*wsOperation // by id: the operations running
	wg  sync.WaitGroup          // the operations' goroutines and the keep-alive
}

// wsOperation is an operation a subscribe message started.
type wsOperation struct {
	id     string
	cancel context.CancelFunc

	mu      sync.Mutex // held while a message of the operation is sent
	stopped bool       // the client completed it: nothing more is sent
}

// stop ends the operation at the client's request: once it returns,
// nothing more is sent for it.
func (op *wsOperation) stop() {
	op.mu.Lock()
	op.stopped = true
	op.mu.Unlock()
	op.cancel()
}

// serve runs the connection: the read loop here, the operations and the
// keep-alive in goroutines. It returns when the socket is closed, after
// the operations have stopped.
func (c *wsConn) serve(ctx context.Context) {
	// Server.Close (through ctx) closes the socket as a server going
	// away; the read below then ends.
	stopShutdown := context.AfterFunc(ctx, func() {
		_ = c.ws.Close(websocket.StatusGoingAway, "the server is shutting down")
	})
	defer stopShutdown()

	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel() // ends every operation and the keep-alive
		_ = c.ws.CloseNow()
		c.wg.Wait()
	}()
	c.closing, c.opsCtx = ctx, ctx

	initTimer := time.AfterFunc(c.t.initTimeout, func() {
		if !c.initialised.Load() {
			c.close(wsCloseInitTimeout, "Connection initialisation timeout")
		}
	})
	defer initTimer.Stop()

	c.wg.Add(1)
	go c.keepAlive(ctx)

	for {
		// No context: the socket is closed on every way out (by the
		// peer, by a close of ours, past the read limit with 1009, by
		// the keep-alive, by Server.Close), which ends the read.
		typ, data, err := c.ws.Read(context.Background())
		if err != nil {
			if trip := c.guard.tripError(); trip != nil {
				// A frame past the message limit, or a message too slow
				// to arrive: the guard fails every read from now on, so
				// the close handshake ends at once.
				switch trip.code {
				case websocket.StatusMessageTooBig:
					c.t.tooBig.Add(1)
				case websocket.StatusPolicyViolation:
					c.t.tooSlow.Add(1)
				}
				c.close(trip.code, trip.reason)
			}
			return
		}
		start := graphql.Now()
		if typ != websocket.MessageText {
			c.close(wsCloseBadRequest, "Invalid message received: messages must be JSON text")
			return
		}
		m, problem := parseWSMessage(data)
		if problem != "" {
			c.close(wsCloseBadRequest, "Invalid message received: "+problem)
			return
		}
		if !c.handle(m, start, int64(len(data))) {
			return
		}
	}
}

// handle acts on one valid message of size bytes; false when the
// connection is over.
func (c *wsConn) handle(m wsMessage, start time.Time, size int64) bool {
	switch m.typ {
	case "connection_init":
		if c.initialised.Swap(true) {
			c.close(wsCloseTooManyInits, "Too many initialisation requests")
			return false
		}
		// The token in the payload ({"Authorization": "Bearer …"}) wins
		// over the upgrade request's header, already in the context.
		if tok := bearer(initAuthorization(m.payload)); tok != "" {
			c.opsCtx = graph.WithBearerToken(c.opsCtx, tok)
		}
		// The acknowledgement echoes nothing of the payload.
		return c.write([]byte(`{"type":"connection_ack"}`)) == nil
	case "ping":
		if m.payload == nil {
			return c.write([]byte(`{"type":"pong"}`)) == nil
		}
		return c.write(append(append([]byte(`{"type":"pong","payload":`), m.payload...), '}')) == nil
	case "pong":
		return true
	case "complete":
		c.mu.Lock()
		op := c.ops[m.id]
		delete(c.ops, m.id)
		c.mu.Unlock()
		if op != nil {
			op.stop()
		}
		return true
	default: // "subscribe", the last type parseWSMessage lets through
		return c.subscribe(m, start, size)
	}
}

// subscribe starts the operation of a subscribe message of size bytes;
// false when the message broke the protocol and the connection is over.
func (c *wsConn) subscribe(m wsMessage, start time.Time, size int64) bool {
	params, problem := parseSubscribePayload(m.payload)
	if problem != "" {
		c.close(wsCloseBadRequest, "Invalid message received: "+problem)
		return false
	}
	if !c.initialised.Load() {
		c.close(wsCloseUnauthorized, "Unauthorized")
		return false
	}
	params.Headers = c.header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	// Only this loop adds operations: an id free here is free below.
	c.mu.Lock()
	_, dup := c.ops[m.id]
	c.mu.Unlock()
	if dup {
		c.close(wsCloseSubscriberExists, "Subscriber for "+clip(m.id, maxCloseReason-len("Subscriber for  already exists"))+" already exists")
		return false
	}
	// Each operation is a request for the rate limit.
	if lim := c.t.s.limiter; lim != nil {
		if ok, retryAfter := lim.allow(c.client); !ok {
			c.t.rateLimited.Add(1)
			return c.refuseOperation(m.id, lim.refusal(retryAfter, "operations"))
		}
	}
	c.mu.Lock()
	if len(c.ops) >= c.t.maxOperations {
		c.mu.Unlock()
		c.t.overOperations.Add(1)
		return c.refuseOperation(m.id, &apierror.Error{Code: apierror.BadUserInput, Reason: ReasonSubscriptionLimit, Message: fmt.Sprintf(
			"too many operations on this websocket: at most %d may run at once; complete one (or open another connection) first",
			c.t.maxOperations)})
	}
	ctx, cancel := context.WithCancel(c.opsCtx)
	op := &wsOperation{id: m.id, cancel: cancel}
	c.ops[m.id] = op
	c.mu.Unlock()

	c.wg.Add(1)
	go c.run(graphql.StartOperationTrace(ctx), op, params, size)
	return true
}

// refuseOperation answers a subscribe message that starts no operation
// with an "error" message; the connection stays. False when the socket
// is gone.
func (c *wsConn) refuseOperation(id string, err error) bool {
	resp := c.exec.DispatchError(c.opsCtx, gqlerror.List{gqlerror.Wrap(err)})
	return c.send(id, "error", func(b *bytes.Buffer) { writeErrors(b, resp.Errors) }) == nil
}

// run executes an operation as gqlgen's transports do, and sends its
// results ("next"), then "complete"; errors found before execution
// (admission, parsing, validation, limits) go in one "error" message
// instead. size is its message's bytes.
func (c *wsConn) run(ctx context.Context, op *wsOperation, params *graphql.RawParams, size int64) {
	defer c.wg.Done()
	defer op.cancel()
	defer func() {
		if p := recover(); p != nil {
			err := c.t.recoverFunc(ctx, p)
			resp := c.exec.DispatchError(ctx, gqlerror.List{gqlerror.WrapIfUnwrapped(err)})
			c.finish(op, "error", func(b *bytes.Buffer) { writeErrors(b, resp.Errors) })
		}
	}()

	// The operation holds its memory for its life, as a request does
	// until it is answered: its message and overhead now, its document
	// and answers as its pricing grows the hold. It waits here, not in
	// the read loop, which goes on reading the connection's messages.
	hold, err := c.admitOperation(ctx, size)
	if err != nil {
		resp := c.exec.DispatchError(ctx, gqlerror.List{gqlerror.Wrap(err)})
		c.finish(op, "error", func(b *bytes.Buffer) { writeErrors(b, resp.Errors) })
		return
	}
	defer hold.Release()
	ctx = c.t.s.withAdmission(ctx, hold)

	rc, errs := c.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := c.exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		c.finish(op, "error", func(b *bytes.Buffer) { writeErrors(b, resp.Errors) })
		return
	}
	responses, ctx := c.exec.DispatchOperation(ctx, rc)
	for {
		resp := responses(ctx)
		if resp == nil {
			break
		}
		c.sendFor(op, "next", func(b *bytes.Buffer) { writeResponse(b, resp) })
	}
	if c.closing.Err() != nil || c.t.s.closing.Err() != nil {
		// The connection is closing, or the server is: the stream did not
		// end, so no "complete"; the close frame (1001) says why. The
		// server's own context is checked too, since the connection's
		// learns of Close a moment after the subscriptions' hub does.
		return
	}
	c.finish(op, "complete", nil)
}

// admitOperation holds the memory of an operation of the connection's
// client, its message's size bytes and its overhead, waiting up to
// AdmissionWait for room; else the refusal, as the API's error.
func (c *wsConn) admitOperation(ctx context.Context, size int64) (*quota.Hold, error) {
	hold, err := c.t.s.memory.Wait(ctx, c.client, wsOperationOverhead+size, c.t.s.cfg.AdmissionWait)
	var ref *quota.Refusal
	if errors.As(err, &ref) {
		return nil, apierror.Refused(ref)
	}
	return hold, err
}

// finish forgets the operation, then sends its last message: forgotten
// first, so that a client may reuse the id as soon as it reads that
// message.
func (c *wsConn) finish(op *wsOperation, typ string, payload func(*bytes.Buffer)) {
	c.mu.Lock()
	if c.ops[op.id] == op {
		delete(c.ops, op.id)
	}
	c.mu.Unlock()
	c.sendFor(op, typ, payload)
}

// sendFor sends a message of op unless the client completed it.
func (c *wsConn) sendFor(op *wsOperation, typ string, payload func(*bytes.Buffer)) {
	op.mu.Lock()
	defer op.mu.Unlock()
	if !op.stopped {
		_ = c.send(op.id, typ, payload)
	}
}

// send writes {"id":…,"type":…,"payload":…}; payload writes the payload's
// JSON, nil for none.
func (c *wsConn) send(id, typ string, payload func(*bytes.Buffer)) error {
	b := getBuffer()
	defer putBuffer(b)
	quoted, _ := json.Marshal(id) // a string always marshals
	b.WriteString(`{"id":`)
	b.Write(quoted)
	b.WriteString(`,"type":"`)
	b.WriteString(typ)
	b.WriteByte('"')
	if payload != nil {
		b.WriteString(`,"payload":`)
		payload(b)
	}
	b.WriteByte('}')
	return c.write(b.Bytes())
}

// write sends one text message within the pong timeout; past it the
// websocket library closes the socket.
func (c *wsConn) write(msg []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.t.pongTimeout)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, msg)
}

// close closes the socket with a graphql-transport-ws code. It waits for
// the peer's answer for a few seconds at most (the websocket library's
// bound); any goroutine may call it, once or more.
func (c *wsConn) close(code websocket.StatusCode, reason string) {
	c.t.logger.Debug("websocket closed", "code", int(code), "reason", reason)
	_ = c.ws.Close(code, reason)
}

// keepAlive pings the peer (WebSocket ping frames, which browsers answer
// by themselves) every ping interval, and drops the connection of a peer
// whose pong does not come within the pong timeout: a dead peer sends no
// close frame, and would hold its socket and operations forever.
func (c *wsConn) keepAlive(ctx context.Context) {
	defer c.wg.Done()
	tick := time.NewTicker(c.t.pingInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// Not ctx: ending it would close the socket under a close
		// handshake in progress.
		pctx, cancel := context.WithTimeout(context.Background(), c.t.pongTimeout)
		err := c.ws.Ping(pctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				c.t.logger.Debug("websocket peer did not answer a ping", "timeout", c.t.pongTimeout.String(), "error", err.Error())
				_ = c.ws.CloseNow() // the peer would not read a close frame
			}
			return
		}
	}
}

// wsMessage is a valid message from a client.
type wsMessage struct {
	typ, id string
	payload json.RawMessage // nil when absent or null
}

// parseWSMessage checks a client's message against the protocol: a JSON
// object whose type is one a client sends, with the id and payload that
// type needs. problem says what is wrong, in a few words, for the close
// reason.
func parseWSMessage(data []byte) (m wsMessage, problem string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return m, "not a JSON object"
	}
	if !jsonString(fields["type"], &m.typ) {
		return m, "type must be a string"
	}
	payload := fields["payload"]
	if isNull(payload) {
		payload = nil
	}
	switch m.typ {
	case "connection_init", "ping", "pong":
		if payload != nil && !isObject(payload) {
			return m, m.typ + " payload must be an object"
		}
	case "subscribe", "complete":
		if !jsonString(fields["id"], &m.id) || m.id == "" {
			return m, m.typ + " needs an id, a non-empty string"
		}
		if m.typ == "subscribe" && !isObject(payload) {
			return m, "subscribe payload must be an object"
		}
	default:
		return m, "type must be connection_init, ping, pong, subscribe or complete"
	}
	m.payload = payload
	return m, ""
}

// parseSubscribePayload reads a subscribe message's payload: query a
// string; operationName a string or null; variables and extensions
// objects or null.
func parseSubscribePayload(payload json.RawMessage) (*graphql.RawParams, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil {
		return nil, "subscribe payload must be an object"
	}
	p := &graphql.RawParams{}
	if !jsonString(fields["query"], &p.Query) {
		return nil, "subscribe payload needs query, a string"
	}
	if v := fields["operationName"]; !isNull(v) && !jsonString(v, &p.OperationName) {
		return nil, "operationName must be a string or null"
	}
	for _, f := range []struct {
		name string
		into *map[string]any
	}{{"variables", &p.Variables}, {"extensions", &p.Extensions}} {
		v := fields[f.name]
		if isNull(v) {
			continue
		}
		// Numbers stay json.Number, as gqlgen's transports keep them.
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if !isObject(v) || dec.Decode(f.into) != nil {
			return nil, f.name + " must be an object or null"
		}
	}
	return p, ""
}

// initAuthorization is the "Authorization" (or "authorization") string
// of a connection_init payload, "" for none.
func initAuthorization(payload json.RawMessage) string {
	var fields map[string]json.RawMessage
	if payload == nil || json.Unmarshal(payload, &fields) != nil {
		return ""
	}
	for _, k := range []string{"Authorization", "authorization"} {
		var s string
		if jsonString(fields[k], &s) && s != "" {
			return s
		}
	}
	return ""
}

// writeErrors writes the payload of an "error" message: the GraphQL
// errors as an array.
func writeErrors(b *bytes.Buffer, errs gqlerror.List) {
	if errs == nil {
		errs = gqlerror.List{}
	}
	out, err := json.Marshal(errs)
	if err != nil {
		panic("marshalling GraphQL errors: " + err.Error())
	}
	b.Write(out)
}

func isNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// jsonString decodes v into s when v is a JSON string.
func jsonString(v json.RawMessage, s *string) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"' && json.Unmarshal(v, s) == nil
}

// clip shortens s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
