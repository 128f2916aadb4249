package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/server"
)

// The attacks on connections: many from one address (silent, or idle
// keep-alives), and many from many addresses up to the server's total.
// Every connection's two ends are in this process, so 2,048 connections
// are 4,096 descriptors, within the 20,000 the test machine allows: the
// tests run at the default MaxConnections.

// answerWithin is how soon a refused connection must be answered: it is
// answered once it has waited 100 ms for a request that does not come,
// and the machine is loaded.
const answerWithin = time.Second

// dialFrom opens a raw connection to b's server from the loopback address
// ip.
func dialFrom(b *apitest.Bundle, ip string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return d.Dial("tcp", strings.TrimPrefix(b.Base, "http://"))
}

// mustDialFrom is dialFrom for the test's goroutine; the connection is
// closed when the test ends, if not before.
func mustDialFrom(t *testing.T, b *apitest.Bundle, ip string) net.Conn {
	t.Helper()
	c, err := dialFrom(b, ip)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawAnswer reads one HTTP answer, body included, from c within limit.
func rawAnswer(c net.Conn, limit time.Duration) (*http.Response, []byte, error) {
	_ = c.SetReadDeadline(time.Now().Add(limit))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// keepAlive asks GET /healthz on c and reads the answer: the server then
// keeps c open, idle, for the next request.
func keepAlive(c net.Conn) error {
	if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err
	}
	resp, body, err := rawAnswer(c, 10*time.Second)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" || resp.Close {
		return fmt.Errorf("GET /healthz: %d %q, Connection: close %t", resp.StatusCode, body, resp.Close)
	}
	return nil
}

// closedByServer reports whether the server has closed c: a read sees the
// end within wait.
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// checkRefusal checks a refusal: status, Retry-After, and the GraphQL
// error with its reason.
func checkRefusal(resp *http.Response, body []byte, status int, reason string) error {
	var answer struct {
		Errors []apitest.Error `json:"errors"`
	}
	err := json.Unmarshal(body, &answer)
	switch {
	case resp.StatusCode != status:
		return fmt.Errorf("status %d, want %d: %s", resp.StatusCode, status, body)
	case resp.Header.Get("Retry-After") == "":
		return fmt.Errorf("no Retry-After: %s", body)
	case err != nil || len(answer.Errors) != 1:
		return fmt.Errorf("body %q: want one GraphQL error (%v)", body, err)
	case answer.Errors[0].Extensions["reason"] != reason:
		return fmt.Errorf("reason %v, want %s: %s", answer.Errors[0].Extensions["reason"], reason, answer.Errors[0].Message)
	}
	return nil
}

// checkConnRefusal checks the refusal of a connection: checkRefusal's,
// and Connection: close.
func checkConnRefusal(resp *http.Response, body []byte, status int, reason string) error {
	if !resp.Close {
		return fmt.Errorf("%d without Connection: close", resp.StatusCode)
	}
	return checkRefusal(resp, body, status, reason)
}

// pool returns the pool called name of b's server.
func pool(t *testing.T, b *apitest.Bundle, name string) *quota.Pool {
	t.Helper()
	return poolOf(t, b.Server, name)
}

// poolOf returns srv's pool called name.
func poolOf(t *testing.T, srv *server.Server, name string) *quota.Pool {
	t.Helper()
	for _, p := range srv.Pools() {
		if p.Name() == name {
			return p
		}
	}
	t.Fatalf("the server has no pool %q", name)
	return nil
}

// connsOf waits until the server holds want connections of client.
func connsOf(t *testing.T, b *apitest.Bundle, client string, want int64) {
	t.Helper()
	p := pool(t, b, apierror.PoolConnections)
	eventually.True(t, 10*time.Second, func() string {
		if got := p.HeldBy(client); got != want {
			return fmt.Sprintf("the server holds %d connections of %s, want %d", got, client, want)
		}
		return ""
	})
}

// idleAre waits until the server's connections say what want says.
func idleAre(t *testing.T, b *apitest.Bundle, want func(server.ConnectionStats) bool, says string) server.ConnectionStats {
	t.Helper()
	var st server.ConnectionStats
	eventually.True(t, 10*time.Second, func() string {
		if st = b.Server.Connections(); !want(st) {
			return fmt.Sprintf("connections %+v, want %s", st, says)
		}
		return ""
	})
	return st
}

// closeAll closes the test's ends of conns.
func closeAll(conns []net.Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// allClosed waits until the server has let go of every connection, the
// honest client's websocket included: none open, none counted.
func allClosed(t *testing.T, b *apitest.Bundle) {
	t.Helper()
	p := pool(t, b, apierror.PoolConnections)
	eventually.True(t, 10*time.Second, func() string {
		if st := b.Server.Connections(); st.Open != 0 || st.Idle != 0 || p.Held() != 0 {
			return fmt.Sprintf("connections %+v, %d held in the pool, once all were closed", st, p.Held())
		}
		return ""
	})
}

// TestAbuseConnections: the bounds on connections, small. A client at its
// share with nothing idle is answered 429 at once. At the total, a
// newcomer is served by closing an idle keep-alive if there is one, else
// the oldest silent connection of a client that holds more than it; when
// no client holds more than it, it is answered 503 at once. (The old
// listener let connections past the total wait in the kernel's backlog:
// one address could keep everyone else waiting.)
func TestAbuseConnections(t *testing.T) {
	t.Parallel()
	small := func(c *server.Config) {
		c.MaxConnections, c.MaxConnectionsPerClient, c.MaxIdleConnectionsPerClient = 16, 4, 2
		c.ReadHeaderTimeout = time.Minute // the silent connections stay for the test
	}
	b := apitest.Setup(t, small)
	held := map[string][]net.Conn{}
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		for range 4 {
			held[ip] = append(held[ip], mustDialFrom(t, b, ip))
		}
		connsOf(t, b, ip, 4)
		if ip != "127.0.0.2" {
			continue
		}
		start := time.Now()
		resp, body, err := rawAnswer(mustDialFrom(t, b, ip), 10*time.Second)
		if err != nil {
			t.Fatalf("a 5th connection of %s with 4 open: %v", ip, err)
		}
		if err := checkConnRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
			t.Fatalf("a 5th connection of %s with 4 open: %v", ip, err)
		}
		t.Logf("a 5th connection of one address answered %d after %s: %s", resp.StatusCode, time.Since(start).Round(time.Millisecond), body)
	}

	// At the total, nothing idle: a silent connection of a client that
	// holds 4 makes room for the newcomer, which holds none.
	newcomer := mustDialFrom(t, b, "127.0.0.6")
	if err := keepAlive(newcomer); err != nil {
		t.Fatalf("a newcomer at the total, nothing idle: %v", err)
	}
	closed := 0
	var open []net.Conn
	for _, cs := range held {
		for _, c := range cs {
			if closedByServer(c, 50*time.Millisecond) {
				closed++
			} else {
				open = append(open, c)
			}
		}
	}
	if st := b.Server.Connections(); closed != 1 || st.EvictedSilent != 1 || st.Open != 16 {
		t.Errorf("%d silent connections closed for the newcomer, connections %+v; want 1 closed, 16 open", closed, st)
	}

	// One of the silent connections makes a request and stays idle: it
	// goes before any silent one.
	idle := open[0]
	if err := keepAlive(idle); err != nil {
		t.Fatal(err)
	}
	idleAre(t, b, func(st server.ConnectionStats) bool { return st.Idle >= 1 }, "one idle")
	if err := keepAlive(mustDialFrom(t, b, "127.0.0.7")); err != nil {
		t.Fatalf("a newcomer at the total with one connection idle: %v", err)
	}
	if !closedByServer(idle, 5*time.Second) {
		t.Error("the idle connection was not closed to make room for the newcomer")
	}
	if st := b.Server.Connections(); st.EvictedForTotal == 0 || st.Open != 16 {
		t.Errorf("connections %+v; want 16 open, an idle one evicted for the total", st)
	}
	if share, total := pool(t, b, apierror.PoolConnections).Refused(); share != 1 || total != 0 {
		t.Errorf("the connections pool refused %d for the share and %d for the total, want 1 and 0", share, total)
	}

	// Sixteen clients of one connection each: nobody holds more than a
	// newcomer would, so it is answered 503.
	even := apitest.Setup(t, small)
	for i := range 16 {
		mustDialFrom(t, even, fmt.Sprintf("127.0.0.%d", 40+i))
	}
	idleAre(t, even, func(st server.ConnectionStats) bool { return st.Open == 16 }, "16 open")
	start := time.Now()
	resp, body, err := rawAnswer(mustDialFrom(t, even, "127.0.0.6"), 10*time.Second)
	if err != nil {
		t.Fatalf("a newcomer with 16 clients of one connection each: %v", err)
	}
	if err := checkConnRefusal(resp, body, http.StatusServiceUnavailable, "CONNECTIONS_TOTAL"); err != nil {
		t.Fatalf("a newcomer with 16 clients of one connection each: %v", err)
	}
	t.Logf("a newcomer at the total among equals answered %d after %s", resp.StatusCode, time.Since(start).Round(time.Millisecond))
}

// TestAbuseSilentConnections: one address opens 1,000 connections and
// sends nothing. The server holds 64 of them (its share, until the header
// timeout) and answers each of the others 429 at once; an honest client
// on another address gets a page, an export and a subscription within
// 1 s meanwhile.
func TestAbuseSilentConnections(t *testing.T) {
	const attacker, opened = "127.0.0.20", 1000
	b := apitest.Setup(t)
	share := int(server.DefaultConfig().MaxConnectionsPerClient)
	before := takeBaseline(t)
	stop := watchRSS(t)

	conns := make([]net.Conn, opened)
	var refused, unanswered, slowest atomic.Int64
	errs := make(chan error, opened)
	var dialing, reading sync.WaitGroup
	start := time.Now()
	for w := range 20 {
		dialing.Go(func() {
			for i := w; i < opened; i += 20 {
				c, err := dialFrom(b, attacker)
				if err != nil {
					errs <- err
					continue
				}
				conns[i] = c
				dialed := time.Now()
				reading.Go(func() {
					resp, body, err := rawAnswer(c, 3*answerWithin)
					if err != nil {
						unanswered.Add(1) // held, or not answered in time
						return
					}
					took := time.Since(dialed)
					for s := slowest.Load(); took > time.Duration(s) && !slowest.CompareAndSwap(s, int64(took)); s = slowest.Load() {
					}
					if err := checkConnRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
						errs <- err
						return
					}
					if took > answerWithin {
						errs <- fmt.Errorf("a refused connection was answered after %s", took)
					}
					refused.Add(1)
				})
			}
		})
	}
	dialing.Wait()
	dialedIn := time.Since(start)
	reading.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if held := pool(t, b, apierror.PoolConnections).HeldBy(attacker); held != int64(share) || refused.Load() != int64(opened-share) {
		t.Fatalf("%d connections held, %d refused; want %d and %d", held, refused.Load(), share, opened-share)
	}
	t.Logf("%d connections opened in %s: %d held, %d answered 429 (the slowest after %s), %d not answered",
		opened, dialedIn.Round(time.Millisecond), share, refused.Load(), time.Duration(slowest.Load()).Round(time.Millisecond), unanswered.Load())
	t.Logf("the honest client meanwhile: page %s, export %s, subscription %s",
		honestPage(t, b, "127.0.0.9"), honestExport(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9"))
	if held := pool(t, b, apierror.PoolConnections).HeldBy(attacker); held != int64(share) {
		t.Fatalf("the attacker's connections were let go during the honest requests (%d held): the test did not test", held)
	}
	closeAll(conns)
	allClosed(t, b)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseIdleKeepAlives: one address opens 64 keep-alive connections,
// one request each: the server keeps its 8 latest idle and closes the
// others once they have been idle a second. With its share then full (8
// idle and 56 silent), each further connection it opens closes its own
// oldest idle one and is served; the honest client meanwhile is served
// within 1 s.
func TestAbuseIdleKeepAlives(t *testing.T) {
	const attacker = "127.0.0.21"
	b := apitest.Setup(t)
	def := server.DefaultConfig()
	share, idleShare := def.MaxConnectionsPerClient, def.MaxIdleConnectionsPerClient
	before := takeBaseline(t)
	stop := watchRSS(t)
	var conns []net.Conn
	for i := range share {
		c := mustDialFrom(t, b, attacker)
		conns = append(conns, c)
		if err := keepAlive(c); err != nil {
			t.Fatalf("keep-alive %d: %v", i, err)
		}
		// Each goes idle once its answer is written: wait for it, so that
		// the order the server sees is the order they were asked in.
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.Idle+int(st.IdleClosed) == i+1 }, fmt.Sprintf("%d idle or closed", i+1))
	}
	// A second after the last went idle, the oldest are closed.
	idleAre(t, b, func(st server.ConnectionStats) bool {
		return st.Idle == idleShare && st.IdleClosed == int64(share-idleShare)
	}, fmt.Sprintf("%d idle, %d closed", idleShare, share-idleShare))
	for i, c := range conns {
		if closed := closedByServer(c, 100*time.Millisecond); closed != (i < share-idleShare) {
			t.Errorf("keep-alive %d of %d closed: %t", i, share, closed)
		}
	}
	t.Logf("%d keep-alive connections, one request each: %+v", share, b.Server.Connections())

	// Its share full with the 8 idle and 56 silent ones, it asks for more.
	kept := conns[share-idleShare:]
	for range share - idleShare {
		conns = append(conns, mustDialFrom(t, b, attacker))
	}
	connsOf(t, b, attacker, int64(share))
	for i := range idleShare + 4 {
		c := mustDialFrom(t, b, attacker)
		conns = append(conns, c)
		if err := keepAlive(c); err != nil {
			t.Fatalf("connection %d past the share: %v", share+i+1, err)
		}
		// Wait for it to be idle: the next one then closes the oldest.
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.EvictedForClient == int64(i+1) && st.Idle == idleShare },
			fmt.Sprintf("%d evicted, %d idle", i+1, idleShare))
	}
	for i, c := range kept {
		if !closedByServer(c, time.Second) {
			t.Errorf("idle connection %d was not closed to make room", i)
		}
	}
	held := pool(t, b, apierror.PoolConnections).HeldBy(attacker)
	t.Logf("%d more connections with its share full: each served, %+v, %d held", idleShare+4, b.Server.Connections(), held)
	if held != int64(share) {
		t.Errorf("the attacker holds %d connections, want its share %d", held, share)
	}
	t.Logf("the honest client meanwhile: page %s, export %s, subscription %s",
		honestPage(t, b, "127.0.0.9"), honestExport(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9"))
	closeAll(conns)
	allClosed(t, b)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// attackers are the loopback addresses of many clients, from 127.0.1.30
// up, none of them an honest client's 127.0.0.x.
func attackers(n int) []string {
	ips := make([]string, n)
	for i := range ips {
		ips[i] = fmt.Sprintf("127.0.%d.%d", 1+i/200, 30+i%200)
	}
	return ips
}

// TestAbuseIdleAtTotal: many addresses hold the server's total of
// connections (2,048), each as many keep-alive connections idle as a
// client may keep (8), and one address more than the others (8 idle and
// 24 sending a body slowly). An honest newcomer is served within 1 s:
// the oldest idle connection of the biggest holder is closed to make
// room, and nobody else's.
func TestAbuseIdleAtTotal(t *testing.T) {
	b := apitest.Setup(t)
	def := server.DefaultConfig()
	total, idleShare := def.MaxConnections, def.MaxIdleConnectionsPerClient
	const slowBodies = 24
	biggest := idleShare + slowBodies
	ips := attackers((total - biggest) / idleShare)
	before := takeBaseline(t)
	stop := watchRSS(t)

	var conns []net.Conn
	var mu sync.Mutex
	errs := make(chan error, len(ips))
	var wg sync.WaitGroup
	next := make(chan string)
	start := time.Now()
	for range 16 {
		wg.Go(func() {
			for ip := range next {
				for range idleShare {
					c, err := dialFrom(b, ip)
					if err == nil {
						mu.Lock()
						conns = append(conns, c)
						mu.Unlock()
						err = keepAlive(c)
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %v", ip, err)
						return
					}
				}
			}
		})
	}
	for _, ip := range ips {
		next <- ip
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// The biggest holder: its idle ones, oldest first, then slow bodies.
	const holder = "127.0.0.30"
	var holderIdle []net.Conn
	for range idleShare {
		c := mustDialFrom(t, b, holder)
		conns = append(conns, c)
		if err := keepAlive(c); err != nil {
			t.Fatal(err)
		}
		holderIdle = append(holderIdle, c)
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.Idle == len(ips)*idleShare+len(holderIdle) },
			fmt.Sprintf("%d idle", len(ips)*idleShare+len(holderIdle)))
	}
	for range slowBodies {
		c := mustDialFrom(t, b, holder)
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\": ")
	}
	connsOf(t, b, holder, int64(biggest))
	st := idleAre(t, b, func(st server.ConnectionStats) bool { return st.Open == total }, fmt.Sprintf("%d open", total))
	t.Logf("%d addresses hold %d connections, all idle but %d, after %s", len(ips)+1, st.Open, slowBodies, time.Since(start).Round(time.Millisecond))

	took := honestPage(t, b, "127.0.0.9")
	if !closedByServer(holderIdle[0], time.Second) {
		t.Error("the oldest idle connection of the biggest holder was not closed to make room")
	}
	for _, c := range holderIdle[1:] {
		if closedByServer(c, 10*time.Millisecond) {
			t.Error("another idle connection of the biggest holder was closed")
		}
	}
	p := pool(t, b, apierror.PoolConnections)
	for _, ip := range ips {
		if held := p.HeldBy(ip); held != int64(idleShare) {
			t.Errorf("%s holds %d connections, want %d: not the biggest holder, it lost one", ip, held, idleShare)
		}
	}
	after := b.Server.Connections()
	t.Logf("the honest newcomer's page in %s: %+v", took, after)
	if after.EvictedForTotal != 1 || after.IdleClosed != 0 {
		t.Errorf("connections %+v: want one evicted for the total and none closed otherwise", after)
	}
	// The honest client's other requests, each with the total full again
	// once its connection is closed.
	refill := func(ip string) {
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.Open == total-1 }, fmt.Sprintf("%d open", total-1))
		c := mustDialFrom(t, b, ip)
		conns = append(conns, c)
		if err := keepAlive(c); err != nil {
			t.Fatal(err)
		}
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.Open == total }, fmt.Sprintf("%d open", total))
	}
	refill("127.0.0.31")
	exported := honestExport(t, b, "127.0.0.9")
	refill("127.0.0.32")
	subscribed := honestSubscription(t, b, "127.0.0.9")
	t.Logf("at the total again: export %s, subscription %s; %+v", exported, subscribed, b.Server.Connections())
	if share, total := p.Refused(); share != 0 || total != 0 {
		t.Errorf("the connections pool refused %d for the share and %d for the total, want none", share, total)
	}
	closeAll(conns)
	allClosed(t, b)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseSilentAtTotal: 32 addresses each open their share of silent
// connections (64), the server's total (2,048). With nothing idle to
// close, a newcomer from another address takes the place of the oldest
// silent connection of a client that holds more: the honest client's
// page, export and subscription are answered within 1 s during the
// attack; a newcomer from an attacking address, at its share, is answered
// 429 at once.
func TestAbuseSilentAtTotal(t *testing.T) {
	b := apitest.Setup(t)
	def := server.DefaultConfig()
	share := def.MaxConnectionsPerClient
	ips := attackers(def.MaxConnections / share)
	before := takeBaseline(t)
	stop := watchRSS(t)

	conns := make([][]net.Conn, len(ips))
	errs := make(chan error, len(ips))
	var wg sync.WaitGroup
	start := time.Now()
	for i, ip := range ips {
		wg.Go(func() {
			for range share {
				c, err := dialFrom(b, ip)
				if err != nil {
					errs <- err
					return
				}
				conns[i] = append(conns[i], c)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	full := func() {
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.Open == def.MaxConnections }, fmt.Sprintf("%d open", def.MaxConnections))
	}
	full()
	t.Logf("%d addresses opened %d silent connections in %s", len(ips), def.MaxConnections, time.Since(start).Round(time.Millisecond))

	// An attacker's newcomer: its address holds its share already.
	begun := time.Now()
	extra := mustDialFrom(t, b, ips[0])
	resp, body, err := rawAnswer(extra, 10*time.Second)
	took := time.Since(begun)
	extra.Close()
	if err != nil {
		t.Fatalf("an attacker's newcomer at the total: %v", err)
	}
	if err := checkConnRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
		t.Fatalf("an attacker's newcomer at the total: %v", err)
	}
	if took > answerWithin {
		t.Errorf("the attacker's newcomer waited %s for its refusal, more than %s", took, answerWithin)
	}

	// The honest client, each of its requests on a new connection at the
	// total, the attack going on: once it has closed its connection, a
	// fresh address fills the total again with a silent one.
	refill := func(ip string) {
		idleAre(t, b, func(st server.ConnectionStats) bool { return st.Open == def.MaxConnections-1 }, "the honest connection closed")
		conns[0] = append(conns[0], mustDialFrom(t, b, ip))
		full()
	}
	page := honestPage(t, b, "127.0.0.9")
	refill("127.0.0.201")
	exported := honestExport(t, b, "127.0.0.9")
	refill("127.0.0.202")
	subscribed := honestSubscription(t, b, "127.0.0.9")
	st := b.Server.Connections()
	t.Logf("at the total: an attacker's newcomer answered %d after %s; the honest client's page %s, export %s, subscription %s; %+v",
		resp.StatusCode, took, page, exported, subscribed, st)
	if st.EvictedSilent < 3 {
		t.Errorf("connections %+v: want a silent connection closed for each of the honest client's three", st)
	}
	if _, total := pool(t, b, apierror.PoolConnections).Refused(); total != 0 {
		t.Errorf("%d connections refused for the total, want none: a silent one makes room", total)
	}
	for _, cs := range conns {
		closeAll(cs)
	}
	allClosed(t, b)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}
