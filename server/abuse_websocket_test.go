package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestAbuseWebsocketHandshakes: 400 websockets whose connection_init
// payload is not a JSON object are closed with 4400, and 40 that send
// nothing with 4408 once the init timeout has passed; then the process's
// open file descriptors are back at their baseline, within 10 s of the
// attack's start, and /healthz still answers. Each attacking client closes
// its end only once the server has closed the socket (or after 30 s), so
// descriptors back at the baseline mean the server closed every socket.
//
// Not parallel: it counts the descriptors of the whole process, which
// other tests would move. Tests that do not call t.Parallel run before the
// parallel ones start, so this one runs alone.
func TestAbuseWebsocketHandshakes(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to count open files: %v", err)
	}
	const badInits, silent = 400, 40
	b := apitest.Setup(t, func(c *server.Config) {
		c.WSInitTimeout = 3 * time.Second
		// The test is about leaks, not the caps.
		c.WSMaxConnections, c.WSMaxConnectionsPerClient = 1000, 1000
		c.MaxConnectionsPerClient = 1000
	})
	checkHealthz(t, b) // the client's keep-alive connection is part of the baseline
	baseline := openFiles(t)

	payloads := []string{`"Bearer x"`, `[1,2]`, `42`, `true`, `"{}"`}
	start := time.Now()
	errs := make(chan error, badInits+silent)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var badClosed time.Duration // when the last bad handshake was closed, since start
	for i := range badInits + silent {
		wg.Go(func() {
			if i < badInits {
				init := fmt.Sprintf(`{"type":"connection_init","payload":%s}`, payloads[i%len(payloads)])
				if i%10 == 0 {
					init = `connection_init` // not JSON at all
				}
				errs <- attack(b, init, 4400)
				mu.Lock()
				badClosed = max(badClosed, time.Since(start))
				mu.Unlock()
			} else {
				errs <- attack(b, "", 4408)
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed++; failed <= 5 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d attacking connections were not closed as they should be", failed, badInits+silent)
	}

	var now int
	for {
		if now = openFiles(t); now <= baseline {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d open files 10 s after the attack began, %d before it: websockets were left open", now, baseline)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d bad handshakes, all closed %s after the attack began, and %d silent ones: open files back at %d (baseline %d) after %s",
		badInits, badClosed.Round(time.Millisecond), silent, now, baseline, time.Since(start).Round(time.Millisecond))
	checkHealthz(t, b)
}

// attack opens a websocket, sends init (nothing when ""), and waits for
// the server to close it: an error unless it closes with code.
func attack(b *apitest.Bundle, init string, code websocket.StatusCode) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: b.HTTP})
	if err != nil {
		return fmt.Errorf("dialing: %w", err)
	}
	defer c.CloseNow()
	if init != "" {
		if err := c.Write(ctx, websocket.MessageText, []byte(init)); err != nil {
			return fmt.Errorf("sending %s: %w", init, err)
		}
	}
	_, msg, err := c.Read(ctx)
	var ce websocket.CloseError
	switch {
	case err == nil:
		return fmt.Errorf("after %q the server sent %s; want close %d", init, msg, code)
	case !errors.As(err, &ce) || ce.Code != code:
		return fmt.Errorf("after %q: %v; want close %d", init, err, code)
	}
	return nil
}

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

func checkHealthz(t *testing.T, b *apitest.Bundle) {
	t.Helper()
	if r := b.Raw(t, "GET", b.Base+"/healthz", nil); r.Status != 200 || string(r.Raw) != "ok\n" {
		t.Fatalf("/healthz: %d %q", r.Status, r.Raw)
	}
}

// The websocket attacks of the second round: shares per client, idle
// and busy subscriptions, frames that announce more than they send,
// messages trickled, operations past the rate limit and the memory
// share. Each also checks what every attack does (aftermath_test.go): an
// honest client on another address served within a second during it, the
// resident memory within the budget, and the process back at its
// baseline after.

// wsPeer is an attacker's websocket, initialised, whose messages a
// goroutine of its own reads (so that pings are answered) into msgs until
// the socket closes; err is then why (read it once msgs is closed).
type wsPeer struct {
	c    *websocket.Conn
	msgs chan apitest.WSMessage
	err  error
}

// openPeer dials a websocket from client (a bundle of from) to b's
// server and initialises it; the error says what failed, with the
// refusal's answer when the upgrade was refused.
func openPeer(ctx context.Context, b, client *apitest.Bundle) (*wsPeer, *http.Response, error) {
	c, resp, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: client.HTTP})
	if err != nil {
		return nil, resp, err
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"connection_init"}`)); err != nil {
		c.CloseNow()
		return nil, nil, err
	}
	if _, msg, err := c.Read(ctx); err != nil || !strings.Contains(string(msg), `"connection_ack"`) {
		c.CloseNow()
		return nil, nil, fmt.Errorf("after connection_init: %q, %v", msg, err)
	}
	p := &wsPeer{c: c, msgs: make(chan apitest.WSMessage, 64)}
	go func() {
		defer close(p.msgs)
		for {
			var m apitest.WSMessage
			if err := wsjson.Read(context.Background(), c, &m); err != nil {
				p.err = err
				return
			}
			p.msgs <- m
		}
	}()
	return p, nil, nil
}

// subscribe sends a subscribe message of query under id.
func (p *wsPeer) subscribe(ctx context.Context, id, query string) error {
	payload, _ := json.Marshal(apitest.Request{Query: query})
	return wsjson.Write(ctx, p.c, apitest.WSMessage{ID: id, Type: "subscribe", Payload: payload})
}

// await returns the next message, or an error after 30 s or once the
// socket closed.
func (p *wsPeer) await() (apitest.WSMessage, error) {
	select {
	case m, ok := <-p.msgs:
		if !ok {
			return m, errors.New("the socket closed")
		}
		return m, nil
	case <-time.After(30 * time.Second):
		return apitest.WSMessage{}, errors.New("no message within 30 s")
	}
}

// closePeers closes the peers and waits for their readers to end.
func closePeers(peers []*wsPeer) {
	for _, p := range peers {
		if p != nil {
			p.c.CloseNow()
		}
	}
	for _, p := range peers {
		if p != nil {
			for range p.msgs {
			}
		}
	}
}

// countingBoards counts the store's board reads the resolvers make.
type countingBoards struct {
	graph.BoardReader
	board, boards atomic.Int64
}

func (c *countingBoards) Board(ctx context.Context, n int) (store.Board, error) {
	c.board.Add(1)
	return c.BoardReader.Board(ctx, n)
}

func (c *countingBoards) Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error) {
	c.boards.Add(1)
	return c.BoardReader.Boards(ctx, states...)
}

// setupCounted starts a server over a new SQLite store whose board reads
// are counted, as opts change its configuration.
func setupCounted(t *testing.T, opts ...func(*server.Config)) (*apitest.Bundle, store.ReadCloser, *countingBoards) {
	t.Helper()
	st := sqlitetest.OpenTemp(t)
	// The store's pool of read connections, each with its files, fills
	// up under concurrent reads and stays: fill it now, before any
	// baseline is taken.
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 50 {
				_, _ = st.Boards(t.Context())
			}
		})
	}
	wg.Wait()
	reads := &countingBoards{BoardReader: st}
	b := apitest.Setup(t, append([]func(*server.Config){func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = reads, st
	}}, opts...)...)
	return b, st, reads
}

// TestAbuseWebsocketsPerClient: one address opens 100 websockets at once:
// its share (16) is served, the other 84 are refused with 429
// RATE_LIMITED (WEBSOCKETS_PER_CLIENT, or CONNECTIONS_PER_CLIENT for
// those past its 64 connections) and Retry-After before the upgrade,
// and go on being refused while it holds its share; a client on another
// address is served meanwhile.
func TestAbuseWebsocketsPerClient(t *testing.T) {
	const attempts = 100
	b := apitest.Setup(t)
	share := server.DefaultConfig().WSMaxConnectionsPerClient
	before := takeBaseline(t)
	stop := watchRSS(t)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	attacker := from(t, b, "127.0.0.20")
	peers := make([]*wsPeer, attempts)
	statuses := make([]int, attempts)
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Go(func() {
			p, resp, err := openPeer(ctx, b, attacker)
			switch {
			case err == nil:
				peers[i], statuses[i] = p, http.StatusSwitchingProtocols
			case resp != nil && resp.Header.Get("Retry-After") != "":
				body, _ := io.ReadAll(resp.Body)
				statuses[i] = resp.StatusCode
				// Past 64 at once, the address's share of connections
				// refuses first.
				if !strings.Contains(string(body), `"reason":"WEBSOCKETS_PER_CLIENT"`) && !strings.Contains(string(body), `"reason":"CONNECTIONS_PER_CLIENT"`) {
					t.Errorf("refusal %d: %s", resp.StatusCode, body)
				}
			default:
				t.Errorf("websocket %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	defer closePeers(peers)
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	t.Logf("%d websockets from one address at once: %d served, %d refused with 429", attempts, count[101], count[429])
	if count[http.StatusSwitchingProtocols] != share || count[http.StatusTooManyRequests] != attempts-share {
		t.Fatalf("statuses %v; want %d websockets served and the rest refused with 429", count, share)
	}

	// The attacker goes on asking while the honest client is served.
	retried := atomic.Int64{}
	attackCtx, endAttack := context.WithCancel(ctx)
	var attack sync.WaitGroup
	for range 4 {
		attack.Go(func() {
			for attackCtx.Err() == nil {
				if p, _, err := openPeer(attackCtx, b, attacker); err == nil {
					p.c.CloseNow()
					t.Error("a websocket past the client's share was served")
				}
				retried.Add(1)
			}
		})
	}
	honestOnce(t, b)
	endAttack()
	attack.Wait()
	t.Logf("%d more upgrades refused meanwhile", retried.Load())
	for _, p := range peers {
		if p != nil {
			p.c.Close(websocket.StatusNormalClosure, "")
		}
	}
	closePeers(peers)
	attacker.HTTP.CloseIdleConnections()
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseIdleSubscriptions: 2,000 subscriptions to boards nobody
// computes (failed or never asked for), spread over 200 websockets of 13
// addresses within their shares, each websocket having first followed a
// done board to its end: while they wait, the store is not read at all
// (at most the sweep of every board's row, every 10 s) and the process
// uses less than a tenth of a core; an honest client is served. Once they
// close, the process is back at its baseline.
func TestAbuseIdleSubscriptions(t *testing.T) {
	const sockets, perSocket = 200, 10
	b, st, reads := setupCounted(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	storetest.Load(ctx, t, st, 8, solver.DefaultChunkDepth(8)) // done
	if _, _, err := storetest.WritesOf(t, st).PlanBoard(ctx, store.BoardPlan{N: 7, ChunkDepth: 2, StoresSolutions: true, SolverVersion: "abuse-test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.WritesOf(t, st).FailBoard(ctx, 7, "given up"); err != nil {
		t.Fatal(err)
	}
	idleBoards := []int{7, 9, 10, 11, 12, 13, 14, 15, 16, 17} // failed, and never asked for
	before := takeBaseline(t)
	stop := watchRSS(t)

	share := server.DefaultConfig().WSMaxConnectionsPerClient
	clients := map[int]*apitest.Bundle{}
	for i := range sockets / share {
		clients[i] = from(t, b, fmt.Sprintf("127.0.0.%d", 10+i))
	}
	clients[sockets/share] = from(t, b, fmt.Sprintf("127.0.0.%d", 10+sockets/share))
	peers := make([]*wsPeer, sockets)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range sockets {
		wg.Go(func() {
			p, _, err := openPeer(ctx, b, clients[i/share])
			if err != nil {
				t.Errorf("websocket %d: %v", i, err)
				return
			}
			peers[i] = p
			if err := p.subscribe(ctx, "done", `subscription { boardProgress(n: 8) { n state } }`); err != nil {
				t.Error(err)
				return
			}
			for _, want := range []string{"next", "complete"} {
				if m, err := p.await(); err != nil || m.Type != want || m.ID != "done" {
					t.Errorf("websocket %d, the done board: %+v, %v; want %s", i, m, err, want)
					return
				}
			}
			for k := range perSocket {
				n := idleBoards[(i+k)%len(idleBoards)]
				if err := p.subscribe(ctx, strconv.Itoa(k), fmt.Sprintf(`subscription { boardProgress(n: %d) { n state } }`, n)); err != nil {
					t.Error(err)
					return
				}
			}
			for range perSocket {
				if m, err := p.await(); err != nil || m.Type != "next" {
					t.Errorf("websocket %d: %+v, %v; want the board's state", i, m, err)
					return
				}
			}
		})
	}
	wg.Wait()
	defer closePeers(peers)
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d idle subscriptions on %d websockets of %d addresses open after %s (%d board reads to open them)",
		sockets*perSocket, sockets, len(clients), time.Since(start).Round(time.Millisecond), reads.board.Load())

	board, boards := reads.board.Load(), reads.boards.Load()
	window := 3 * server.DefaultConfig().Graph.PollInterval
	busy := cpuBusy(window)
	board, boards = reads.board.Load()-board, reads.boards.Load()-boards
	t.Logf("over %s of idle subscriptions: %d reads of a board, %d sweeps of all boards, %.1f%% of a core busy", window, board, boards, 100*busy)
	if board != 0 {
		t.Errorf("%d reads of a board in %s while nobody computes the subscribed boards; want none", board, window)
	}
	if sweep := server.DefaultConfig().Graph.SweepInterval; boards > int64(window/sweep)+1 {
		t.Errorf("%d sweeps in %s; want at most one per %s", boards, window, sweep)
	}
	if busy > 0.1 {
		t.Errorf("%.0f%% of a core busy with %d idle subscriptions; want under 10%%", 100*busy, sockets*perSocket)
	}
	honestOnce(t, b)
	for _, p := range peers {
		p.c.Close(websocket.StatusNormalClosure, "")
	}
	closePeers(peers)
	for _, c := range clients {
		c.HTTP.CloseIdleConnections()
	}
	withinBudget(t, stop())
	before.restored(t, 16<<20)
}

// TestAbuseComputedBoardSubscribers: 500 subscribers of one board being
// computed cost one read of it per poll interval, not one each; every one
// of them sees the board reach DONE and its subscription complete.
func TestAbuseComputedBoardSubscribers(t *testing.T) {
	const sockets, perSocket, poll = 50, 10, 100 * time.Millisecond
	b, st, reads := setupCounted(t, func(c *server.Config) { c.Graph.PollInterval = poll })
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	depth := solver.DefaultChunkDepth(10)
	if _, _, err := storetest.WritesOf(t, st).PlanBoard(ctx, store.BoardPlan{N: 10, ChunkDepth: depth, StoresSolutions: true, SolverVersion: "abuse-test"}); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(10, depth)
	if err != nil {
		t.Fatal(err)
	}
	writeChunks := func(cs []solver.Chunk, pause time.Duration) {
		for _, c := range cs {
			last, err := storetest.WritesOf(t, st).WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()})
			if err != nil {
				t.Fatal(err)
			}
			if last {
				if _, err := storetest.WritesOf(t, st).FinishBoard(ctx, 10); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(pause)
		}
	}
	writeChunks(chunks[:len(chunks)/2], 0)
	before := takeBaseline(t)
	stop := watchRSS(t)

	share := server.DefaultConfig().WSMaxConnectionsPerClient
	peers := make([]*wsPeer, sockets)
	var wg sync.WaitGroup
	for i := range sockets {
		wg.Go(func() {
			p, _, err := openPeer(ctx, b, from(t, b, fmt.Sprintf("127.0.0.%d", 40+i/share)))
			if err != nil {
				t.Errorf("websocket %d: %v", i, err)
				return
			}
			peers[i] = p
			for k := range perSocket {
				if err := p.subscribe(ctx, strconv.Itoa(k), `subscription { boardProgress(n: 10) { n state progress { chunksDone } } }`); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	defer closePeers(peers)
	if t.Failed() {
		t.FailNow()
	}

	board, start := reads.board.Load(), time.Now()
	time.Sleep(20 * poll)
	board, took := reads.board.Load()-board, time.Since(start)
	t.Logf("%d subscribers of a running board: %d reads of it in %s (poll interval %s)", sockets*perSocket, board, took.Round(time.Millisecond), poll)
	if most := int64(took/poll) + 2; board > most || board == 0 {
		t.Errorf("%d reads in %s with %d subscribers; want one per poll interval (at most %d)", board, took, sockets*perSocket, most)
	}
	honestOnce(t, b)

	// The rest of the board, then every subscriber sees it done.
	results := make(chan error, sockets)
	for i, p := range peers {
		go func() {
			done, completed := map[string]bool{}, 0
			for completed < perSocket {
				m, err := p.await()
				if err != nil {
					results <- fmt.Errorf("websocket %d: %v after %d completed", i, err, completed)
					return
				}
				switch m.Type {
				case "next":
					if strings.Contains(string(m.Payload), `"state":"DONE"`) {
						done[m.ID] = true
					}
				case "complete":
					if !done[m.ID] {
						results <- fmt.Errorf("websocket %d: subscription %s completed without DONE", i, m.ID)
						return
					}
					completed++
				default:
					results <- fmt.Errorf("websocket %d: %+v", i, m)
					return
				}
			}
			results <- nil
		}()
	}
	writeChunks(chunks[len(chunks)/2:], poll/4)
	for range sockets {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	t.Logf("all %d subscribers saw N=10 done, then their subscriptions complete; %d reads of a board in all", sockets*perSocket, reads.board.Load())
	for _, p := range peers {
		p.c.Close(websocket.StatusNormalClosure, "")
	}
	closePeers(peers)
	withinBudget(t, stop())
	before.restored(t, 16<<20)
}

// rawWebsocket opens a TCP connection from ip to b's server and upgrades
// it by hand.
func rawWebsocket(b *apitest.Bundle, ip string) (net.Conn, *bufio.Reader, error) {
	host := strings.TrimPrefix(b.Base, "http://")
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", host)
	if err != nil {
		return nil, nil, err
	}
	req := "GET /graphql HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n"
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		conn.Close()
		return nil, nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, nil, fmt.Errorf("handshake: %v %+v", err, resp)
	}
	_ = conn.SetDeadline(time.Time{})
	return conn, br, nil
}

// awaitClose reads frames from the server until its close frame and the
// end of the connection, for up to limit: the close code (0 without a
// close frame) and when the connection ended.
func awaitClose(conn net.Conn, br *bufio.Reader, limit time.Duration) (code int, took time.Duration, err error) {
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(limit))
	for {
		op, payload, err := readFrame(br)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return code, time.Since(start), fmt.Errorf("still open after %s", limit)
			}
			return code, time.Since(start), nil // closed
		}
		if op == 0x8 && len(payload) >= 2 {
			code = int(payload[0])<<8 | int(payload[1])
		}
	}
}

// rawAttack runs attack on 16 raw websockets from ip at once, again and
// again, until the honest client has been served, and returns how many
// ran and the longest each took to be closed; an attack's error fails
// the test.
func rawAttack(t *testing.T, b *apitest.Bundle, ip string, attack func(conn net.Conn, br *bufio.Reader) (time.Duration, error)) (runs int64, longest time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range server.DefaultConfig().WSMaxConnectionsPerClient {
		wg.Go(func() {
			for ctx.Err() == nil {
				conn, br, err := rawWebsocket(b, ip)
				if err != nil {
					// The server closes a socket just after its close
					// frame: its slot may not be free yet.
					time.Sleep(10 * time.Millisecond)
					continue
				}
				took, err := attack(conn, br)
				conn.Close()
				mu.Lock()
				runs++
				longest = max(longest, took)
				mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // the attack under way
	honestOnce(t, b)
	cancel()
	wg.Wait()
	return runs, longest
}

// TestAbuseHugeFrameHeader: websockets that send a frame header announcing
// 2^40 bytes and nothing after are closed with 1009 within a second, the
// frame's length checked on its header.
func TestAbuseHugeFrameHeader(t *testing.T) {
	b := apitest.Setup(t)
	before := takeBaseline(t)
	stop := watchRSS(t)
	header := []byte{0x81, 0x80 | 127, 0, 0, 0x01, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78} // text, masked, 1<<40 bytes
	runs, longest := rawAttack(t, b, "127.0.0.21", func(conn net.Conn, br *bufio.Reader) (time.Duration, error) {
		if _, err := conn.Write(header); err != nil {
			return 0, err
		}
		code, took, err := awaitClose(conn, br, 10*time.Second)
		if err == nil && (code != int(websocket.StatusMessageTooBig) || took > time.Second) {
			err = fmt.Errorf("a header of 2^40 bytes: close code %d after %s; want 1009 within 1s", code, took)
		}
		return took, err
	})
	t.Logf("%d websockets announcing 2^40 bytes: each closed with 1009, the slowest after %s", runs, longest.Round(time.Millisecond))
	if got := b.Server.WebsocketRefusals()[server.WSRefusedMessageTooBig]; got < runs {
		t.Errorf("%d closes for a message too big counted, %d sent", got, runs)
	}
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseTrickledMessage: websockets that send a message one byte every
// 500 ms are closed with 1008 once it has taken WSMessageTimeout (a short
// test setting) to arrive, not before.
func TestAbuseTrickledMessage(t *testing.T) {
	const timeout = time.Second
	b := apitest.Setup(t, func(c *server.Config) { c.WSMessageTimeout = timeout })
	before := takeBaseline(t)
	stop := watchRSS(t)
	msg := []byte(`{"type":"connection_init","payload":{"pad":"` + strings.Repeat("x", 100) + `"}}`)
	frame := append([]byte{0x81, 0x80 | byte(len(msg)), 0, 0, 0, 0}, msg...) // masked with a zero key
	var shortest time.Duration = time.Hour
	var mu sync.Mutex
	runs, longest := rawAttack(t, b, "127.0.0.22", func(conn net.Conn, br *bufio.Reader) (time.Duration, error) {
		closed := make(chan struct{})
		go func() {
			for _, c := range frame {
				if _, err := conn.Write([]byte{c}); err != nil {
					return
				}
				select {
				case <-closed:
					return
				case <-time.After(500 * time.Millisecond):
				}
			}
		}()
		code, took, err := awaitClose(conn, br, 10*time.Second)
		close(closed)
		mu.Lock()
		shortest = min(shortest, took)
		mu.Unlock()
		if err == nil && (code != int(websocket.StatusPolicyViolation) || took < timeout-100*time.Millisecond || took > timeout+2*time.Second) {
			err = fmt.Errorf("a message trickled: close code %d after %s; want 1008 after %s", code, took, timeout)
		}
		return took, err
	})
	t.Logf("%d websockets trickling a message a byte every 500ms: closed with 1008 after %s to %s (message timeout %s)",
		runs, shortest.Round(time.Millisecond), longest.Round(time.Millisecond), timeout)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// maxSubscribe is a subscribe message of exactly size bytes, its document
// padded with a comment.
func maxSubscribe(id string, n, size int) []byte {
	msg := func(pad int) []byte {
		payload, _ := json.Marshal(apitest.Request{Query: fmt.Sprintf("subscription { boardProgress(n: %d) { n state } }\n#%s", n, strings.Repeat("x", pad))})
		m, _ := json.Marshal(apitest.WSMessage{ID: id, Type: "subscribe", Payload: payload})
		return m
	}
	return msg(size - len(msg(0)))
}

// TestAbuseLargeSubscribeMessage: subscribe messages one byte past
// WSMaxMessageBytes, sent again and again on 16 websockets, close each
// with 1009; one of exactly the limit is served.
func TestAbuseLargeSubscribeMessage(t *testing.T) {
	b := apitest.Setup(t)
	limit := int(server.DefaultConfig().WSMaxMessageBytes)
	before := takeBaseline(t)
	stop := watchRSS(t)
	w := dialWS(t, b, nil)
	w.init("")
	w.sendRaw(string(maxSubscribe("fits", 6, limit)))
	w.expect("next", "fits")

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	attackCtx, endAttack := context.WithCancel(ctx)
	attacker := from(t, b, "127.0.0.23")
	var (
		wg   sync.WaitGroup
		runs atomic.Int64
	)
	for i := range server.DefaultConfig().WSMaxConnectionsPerClient {
		wg.Go(func() {
			for attackCtx.Err() == nil {
				p, _, err := openPeer(ctx, b, attacker)
				if err != nil {
					// The server closes a socket just after its close
					// frame: its slot may not be free yet.
					time.Sleep(10 * time.Millisecond)
					continue
				}
				_ = p.c.Write(ctx, websocket.MessageText, maxSubscribe("big", 6, limit+1))
				m, err := p.await()
				p.c.CloseNow()
				for range p.msgs {
				}
				var ce websocket.CloseError
				if err == nil || !errors.As(p.err, &ce) || ce.Code != websocket.StatusMessageTooBig {
					t.Errorf("websocket %d, a message of %d bytes: %+v, %v; want close 1009", i, limit+1, m, p.err)
					return
				}
				runs.Add(1)
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // the attack under way
	honestOnce(t, b)
	endAttack()
	wg.Wait()
	t.Logf("%d subscribe messages of %d bytes (the limit and one): each websocket closed with 1009; one of %d bytes served", runs.Load(), limit+1, limit)
	if got := b.Server.WebsocketRefusals()[server.WSRefusedMessageTooBig]; got < runs.Load() {
		t.Errorf("%d closes for a message too big counted, %d seen", got, runs.Load())
	}
	w.c.CloseNow()
	attacker.HTTP.CloseIdleConnections()
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseOperationRateLimit: with the rate limit on (5 a second, bursts
// of 5), one websocket sends 1,000 subscribe and complete pairs in 2 s:
// at most the burst and 5 a second of them run, the others get an "error"
// message RATE_LIMITED with retryAfter, and the connection stays usable.
func TestAbuseOperationRateLimit(t *testing.T) {
	const pairs, rate, burst = 1000, 5, 5
	b := apitest.Setup(t, func(c *server.Config) { c.RateLimit, c.RateBurst = rate, burst })
	before := takeBaseline(t)
	stop := watchRSS(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	attacker := from(t, b, "127.0.0.24")
	start := time.Now() // the upgrade takes the bucket's first token
	p, _, err := openPeer(ctx, b, attacker)
	if err != nil {
		t.Fatal(err)
	}
	defer closePeers([]*wsPeer{p})

	counts := map[string]int{}
	var mu sync.Mutex
	retryAfter := true
	read := make(chan struct{})
	go func() {
		defer close(read)
		for m := range p.msgs {
			mu.Lock()
			switch m.Type {
			case "error":
				var errs []apitest.Error
				_ = json.Unmarshal(m.Payload, &errs)
				if len(errs) == 1 {
					code, _ := errs[0].Extensions["code"].(string)
					counts["error "+code]++
					if secs, _ := errs[0].Extensions["retryAfter"].(float64); code == "RATE_LIMITED" && secs < 1 {
						retryAfter = false
					}
				}
			default: // by type and the id's first letter: o… the attack's, a… the one after
				counts[m.Type+" "+m.ID[:min(1, len(m.ID))]]++
			}
			mu.Unlock()
		}
	}()
	query := `subscription { boardProgress(n: 6) { n } }` // no store: one event, then complete
	sent := make(chan error, 1)
	go func() {
		for i := range pairs {
			if err := p.subscribe(ctx, fmt.Sprintf("o%d", i), query); err != nil {
				sent <- err
				return
			}
			if err := wsjson.Write(ctx, p.c, apitest.WSMessage{ID: fmt.Sprintf("o%d", i), Type: "complete"}); err != nil {
				sent <- err
				return
			}
			time.Sleep(2 * time.Second / pairs)
		}
		sent <- nil
	}()
	time.Sleep(500 * time.Millisecond) // the attack under way
	honestOnce(t, b)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)

	// The connection stays: a ping is answered, and once the bucket has a
	// token again, an operation runs.
	time.Sleep(time.Second)
	if err := wsjson.Write(ctx, p.c, apitest.WSMessage{Type: "ping"}); err != nil {
		t.Fatal(err)
	}
	if err := p.subscribe(ctx, "after", query); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 10*time.Second, func() string {
		mu.Lock()
		defer mu.Unlock()
		if counts["pong "] == 0 || counts["complete a"] == 0 {
			return fmt.Sprintf("no pong and completed operation after the attack: %v", counts)
		}
		return ""
	})
	mu.Lock()
	refused, capped := counts["error RATE_LIMITED"], counts["error BAD_USER_INPUT"]
	ran := pairs - refused - capped
	mu.Unlock()
	most := burst + int(rate*elapsed.Seconds()) + 1
	t.Logf("%d subscribe/complete pairs in %s: %d ran, %d refused RATE_LIMITED, %d over the operations cap (%v); at most %d may run",
		pairs, elapsed.Round(time.Millisecond), ran, refused, capped, counts, most)
	if ran > most || refused < pairs-most {
		t.Errorf("%d operations ran in %s; want at most %d (burst %d, %d a second)", ran, elapsed, most, burst, rate)
	}
	if !retryAfter {
		t.Error("a RATE_LIMITED error without extensions.retryAfter")
	}
	if got := b.Server.WebsocketRefusals()[server.WSRefusedRateLimited]; got != int64(refused) {
		t.Errorf("WebsocketRefusals counts %d operations rate limited; the client got %d errors", got, refused)
	}
	p.c.Close(websocket.StatusNormalClosure, "")
	<-read
	attacker.HTTP.CloseIdleConnections()
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseOperationMemory: one address fills its 16 websockets with 10
// subscriptions each, every subscribe message as large as a message may
// be (64 KiB), held open: each operation holds its message and overhead
// against the client's share of the memory for requests in flight (4 MiB
// here), so past the share they are refused with RATE_LIMITED
// (MEMORY_PER_CLIENT) after the admission wait; what is held is what the
// operations running hold, and all of it is given back when they end.
func TestAbuseOperationMemory(t *testing.T) {
	const share = 4 << 20
	b, _, _ := setupCounted(t, func(c *server.Config) { c.InflightBytesPerClient = share })
	cfg := server.DefaultConfig()
	sockets, perSocket, size := cfg.WSMaxConnectionsPerClient, cfg.WSMaxSubscriptions, int(cfg.WSMaxMessageBytes)
	before := takeBaseline(t)
	stop := watchRSS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	attacker := from(t, b, "127.0.0.25")
	peers := make([]*wsPeer, sockets)
	results := make([]map[string]int, sockets)
	var wg sync.WaitGroup
	for i := range sockets {
		wg.Go(func() {
			p, _, err := openPeer(ctx, b, attacker)
			if err != nil {
				t.Errorf("websocket %d: %v", i, err)
				return
			}
			peers[i] = p
			for k := range perSocket {
				if err := p.c.Write(ctx, websocket.MessageText, maxSubscribe(strconv.Itoa(k), 9, size)); err != nil {
					t.Error(err)
					return
				}
			}
			results[i] = map[string]int{}
			for range perSocket {
				m, err := p.await()
				if err != nil {
					t.Errorf("websocket %d: %v", i, err)
					return
				}
				kind := m.Type
				if m.Type == "error" {
					errs := gqlErrorsOf(m)
					if len(errs) > 0 {
						kind = fmt.Sprintf("error %v %v", errs[0].Extensions["code"], errs[0].Extensions["reason"])
					}
				}
				results[i][kind]++
			}
		})
	}
	wg.Wait()
	defer closePeers(peers)
	total := map[string]int{}
	for _, r := range results {
		for k, v := range r {
			total[k] += v
		}
	}
	var memory *quota.Pool
	for _, p := range b.Server.Pools() {
		if p.Name() == apierror.PoolMemory {
			memory = p
		}
	}
	held := memory.HeldBy("127.0.0.25")
	accepted, refused := total["next"], total["error RATE_LIMITED MEMORY_PER_CLIENT"]
	t.Logf("%d subscribe messages of %d bytes held open from one address: %d running, holding %.1f MiB of its share of %.1f MiB; %d refused (%v)",
		sockets*perSocket, size, accepted, mib(uint64(held)), mib(share), refused, total)
	if accepted+refused != sockets*perSocket || refused == 0 || accepted == 0 {
		t.Errorf("answers %v; want every operation running or refused with MEMORY_PER_CLIENT, some of each", total)
	}
	if held > share || held < int64(accepted*size) {
		t.Errorf("the client holds %d bytes for %d operations of %d bytes each; want at least their messages, at most its share %d", held, accepted, size, share)
	}
	honestOnce(t, b)
	for _, p := range peers {
		if p != nil {
			p.c.Close(websocket.StatusNormalClosure, "")
		}
	}
	closePeers(peers)
	eventually.True(t, 10*time.Second, func() string {
		if h := memory.HeldBy("127.0.0.25"); h != 0 {
			return fmt.Sprintf("the client still holds %d bytes once its websockets are closed", h)
		}
		return ""
	})
	attacker.HTTP.CloseIdleConnections()
	withinBudget(t, stop())
	before.restored(t, 16<<20)
}

// gqlErrorsOf decodes an "error" message's payload (nil if it is not one).
func gqlErrorsOf(m apitest.WSMessage) []apitest.Error {
	var errs []apitest.Error
	_ = json.Unmarshal(m.Payload, &errs)
	return errs
}
