package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// These tests speak graphql-transport-ws over real websockets to the real
// server, by hand, so that they can break the protocol; each protocol rule
// has its test, and its close code is checked.

// endless is a subscription that stays open: on a server with a store,
// boardProgress follows a board until it is done, and N=10 is never
// computed here.
const endless = `subscription { boardProgress(n: 10) { n state } }`

// setupStore starts a server over an empty SQLite store (polled every
// 50 ms), so that boardProgress subscriptions stay open.
func setupStore(t *testing.T, opts ...func(*server.Config)) *apitest.Bundle {
	t.Helper()
	st := sqlitetest.OpenTemp(t)
	return apitest.Setup(t, append([]func(*server.Config){func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
		c.Graph.PollInterval = 50 * time.Millisecond
	}}, opts...)...)
}

// wsClient is one websocket to the server.
type wsClient struct {
	t   *testing.T
	ctx context.Context
	c   *websocket.Conn
}

func wsURL(b *apitest.Bundle) string { return "ws" + strings.TrimPrefix(b.URL, "http") }

// dialWS opens a websocket offering protocols (graphql-transport-ws when
// none are given), with header on the upgrade request.
func dialWS(t *testing.T, b *apitest.Bundle, header http.Header, protocols ...string) *wsClient {
	t.Helper()
	if protocols == nil {
		protocols = []string{"graphql-transport-ws"}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: protocols, HTTPClient: b.HTTP, HTTPHeader: header})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return &wsClient{t: t, ctx: ctx, c: c}
}

func (w *wsClient) sendRaw(msg string) {
	w.t.Helper()
	if err := w.c.Write(w.ctx, websocket.MessageText, []byte(msg)); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wsClient) send(m apitest.WSMessage) {
	w.t.Helper()
	if err := wsjson.Write(w.ctx, w.c, m); err != nil {
		w.t.Fatal(err)
	}
}

// read returns the next message and its text.
func (w *wsClient) read() (apitest.WSMessage, string) {
	w.t.Helper()
	_, raw, err := w.c.Read(w.ctx)
	if err != nil {
		w.t.Fatalf("reading: %v", err)
	}
	var m apitest.WSMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		w.t.Fatalf("message %s: %v", raw, err)
	}
	return m, string(raw)
}

// expect reads the next message and fails unless it has type typ and id.
func (w *wsClient) expect(typ, id string) apitest.WSMessage {
	w.t.Helper()
	m, raw := w.read()
	if m.Type != typ || m.ID != id {
		w.t.Fatalf("got %s; want type %q, id %q", raw, typ, id)
	}
	return m
}

// init sends connection_init with payload (JSON, "" for none) and reads
// the acknowledgement.
func (w *wsClient) init(payload string) {
	w.t.Helper()
	if payload == "" {
		w.sendRaw(`{"type":"connection_init"}`)
	} else {
		w.sendRaw(`{"type":"connection_init","payload":` + payload + `}`)
	}
	w.expect("connection_ack", "")
}

func (w *wsClient) subscribe(id, query string, vars map[string]any) {
	w.t.Helper()
	payload, err := json.Marshal(apitest.Request{Query: query, Variables: vars})
	if err != nil {
		w.t.Fatal(err)
	}
	w.send(apitest.WSMessage{ID: id, Type: "subscribe", Payload: payload})
}

// alive checks the connection still answers: ping, pong.
func (w *wsClient) alive() {
	w.t.Helper()
	w.sendRaw(`{"type":"ping"}`)
	w.expect("pong", "")
}

// expectClose reads until the server closes the socket, and fails unless
// it closes with code and a reason starting with reason. Messages before
// the close fail the test.
func (w *wsClient) expectClose(code websocket.StatusCode, reason string) {
	w.t.Helper()
	_, raw, err := w.c.Read(w.ctx)
	if err == nil {
		w.t.Fatalf("got message %s; want close %d %q", raw, code, reason)
	}
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != code || !strings.HasPrefix(ce.Reason, reason) {
		w.t.Fatalf("read: %v; want close %d %q", err, code, reason)
	}
}

// gqlErrors decodes an "error" message's payload.
func gqlErrors(t *testing.T, m apitest.WSMessage) []apitest.Error {
	t.Helper()
	var errs []apitest.Error
	if err := json.Unmarshal(m.Payload, &errs); err != nil || len(errs) == 0 {
		t.Fatalf("error payload %s: %v; want GraphQL errors", m.Payload, err)
	}
	return errs
}

// nextPayload decodes a "next" message's payload.
func nextPayload(t *testing.T, m apitest.WSMessage) (data json.RawMessage, errs []apitest.Error) {
	t.Helper()
	var p struct {
		Data   json.RawMessage
		Errors []apitest.Error
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		t.Fatalf("next payload %s: %v", m.Payload, err)
	}
	return p.Data, p.Errors
}

// TestWebsocketSubprotocol: graphql-transport-ws only. A client that
// offers none or another is accepted and then closed with 4406, as
// graphql-ws's own server does.
func TestWebsocketSubprotocol(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for _, offered := range [][]string{{}, {"graphql-ws"}, {"graphql-ws", "graphql-transport-ws"}} {
		t.Run(strings.Join(offered, ",")+"_", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			c, resp, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: offered, HTTPClient: b.HTTP})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			w := &wsClient{t: t, ctx: ctx, c: c}
			if !strings.Contains(strings.Join(offered, ","), "graphql-transport-ws") {
				if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "" {
					t.Errorf("subprotocol %q selected", p)
				}
				w.expectClose(4406, "Subprotocol not acceptable")
				return
			}
			if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "graphql-transport-ws" {
				t.Fatalf("subprotocol %q; want graphql-transport-ws", p)
			}
			w.init("{}")
		})
	}
}

// TestWebsocketInitTimeout: no connection_init within the init timeout
// closes the socket with 4408; a client that initialised in time stays.
func TestWebsocketInitTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 300 * time.Millisecond
	b := apitest.Setup(t, func(c *server.Config) { c.WSInitTimeout = timeout })

	silent := dialWS(t, b, nil)
	start := time.Now()
	silent.expectClose(4408, "Connection initialisation timeout")
	if took := time.Since(start); took < timeout-50*time.Millisecond || took > 10*time.Second {
		t.Errorf("closed after %s; want about %s", took, timeout)
	}

	prompt := dialWS(t, b, nil)
	prompt.init("")
	time.Sleep(2 * timeout)
	prompt.alive()
}

// TestWebsocketInvalidMessages: a message that is not JSON, not an
// object, of an unknown type (or one only servers send), with a payload
// or id of the wrong kind, or binary, closes the socket with 4400 — before
// connection_init as after it.
func TestWebsocketInvalidMessages(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for _, tt := range []struct {
		name, msg string
		afterInit bool
	}{
		{"not JSON", `connection_init`, false},
		{"array", `[{"type":"connection_init"}]`, false},
		{"null", `null`, false},
		{"string", `"connection_init"`, false},
		{"no type", `{"payload":{}}`, false},
		{"type a number", `{"type":1}`, false},
		{"init payload a string", `{"type":"connection_init","payload":"Bearer x"}`, false},
		{"init payload an array", `{"type":"connection_init","payload":[1,2]}`, false},
		{"init payload a number", `{"type":"connection_init","payload":42}`, false},
		{"unknown type", `{"type":"start","id":"1","payload":{"query":"{ __typename }"}}`, false},
		{"a server's type", `{"type":"next","id":"1","payload":{"data":{}}}`, true},
		{"ping payload a string", `{"type":"ping","payload":"x"}`, true},
		{"subscribe without id", `{"type":"subscribe","payload":{"query":"{ __typename }"}}`, true},
		{"subscribe with empty id", `{"type":"subscribe","id":"","payload":{"query":"{ __typename }"}}`, true},
		{"subscribe with number id", `{"type":"subscribe","id":1,"payload":{"query":"{ __typename }"}}`, true},
		{"subscribe without payload", `{"type":"subscribe","id":"1"}`, true},
		{"query a number", `{"type":"subscribe","id":"1","payload":{"query":5}}`, true},
		{"variables an array", `{"type":"subscribe","id":"1","payload":{"query":"{ __typename }","variables":[1]}}`, true},
		{"operationName a number", `{"type":"subscribe","id":"1","payload":{"query":"{ __typename }","operationName":1}}`, true},
		{"complete without id", `{"type":"complete"}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := dialWS(t, b, nil)
			if tt.afterInit {
				w.init("{}")
			}
			w.sendRaw(tt.msg)
			w.expectClose(4400, "Invalid message received")
		})
	}
	t.Run("binary", func(t *testing.T) {
		t.Parallel()
		w := dialWS(t, b, nil)
		if err := w.c.Write(w.ctx, websocket.MessageBinary, []byte(`{"type":"connection_init"}`)); err != nil {
			t.Fatal(err)
		}
		w.expectClose(4400, "Invalid message received")
	})
	// The payload of connection_init may be absent, null or an object.
	for _, init := range []string{`{"type":"connection_init"}`, `{"type":"connection_init","payload":null}`, `{"type":"connection_init","payload":{}}`} {
		w := dialWS(t, b, nil)
		w.sendRaw(init)
		w.expect("connection_ack", "")
	}
}

// TestWebsocketSubscribeBeforeAck: subscribe before connection_init
// closes the socket with 4401.
func TestWebsocketSubscribeBeforeAck(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	w := dialWS(t, b, nil)
	w.subscribe("1", `{ count(n: 4) { total } }`, nil)
	w.expectClose(4401, "Unauthorized")
}

// TestWebsocketSecondInit: a second connection_init closes the socket
// with 4429.
func TestWebsocketSecondInit(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	w := dialWS(t, b, nil)
	w.init("{}")
	w.sendRaw(`{"type":"connection_init","payload":{}}`)
	w.expectClose(4429, "Too many initialisation requests")
}

// TestWebsocketDuplicateID: subscribe with the id of an operation still
// running closes the socket with 4409.
func TestWebsocketDuplicateID(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	w := dialWS(t, b, nil)
	w.init("{}")
	w.subscribe("board-10", endless, nil)
	w.expect("next", "board-10")
	w.subscribe("board-10", endless, nil)
	w.expectClose(4409, "Subscriber for board-10 already exists")

	// A long id is cut to fit the close frame.
	long := strings.Repeat("é", 100)
	w = dialWS(t, b, nil)
	w.init("{}")
	w.subscribe(long, endless, nil)
	w.expect("next", long)
	w.subscribe(long, endless, nil)
	w.expectClose(4409, "Subscriber for éé")
}

// TestWebsocketAckEchoesNothing: connection_ack carries no payload, not
// the client's token above all.
func TestWebsocketAckEchoesNothing(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	w := dialWS(t, b, nil)
	w.sendRaw(`{"type":"connection_init","payload":{"Authorization":"Bearer s3cret","client":"echo me"}}`)
	m, raw := w.read()
	if m.Type != "connection_ack" || (len(m.Payload) > 0 && string(m.Payload) != "{}") || strings.Contains(raw, "s3cret") || strings.Contains(raw, "echo me") {
		t.Errorf("acknowledgement %s; want connection_ack without payload", raw)
	}
}

// TestWebsocketBearerToken: the token of the init payload, or else of the
// upgrade request, authorises mutations sent over the socket.
func TestWebsocketBearerToken(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.Graph.AdminToken = "s3cret" })
	const m = `mutation { precompute(n: 8) { n } }`
	for _, tt := range []struct {
		name    string
		header  http.Header
		payload string
		code    string // UNAVAILABLE: past the token check (no precompute engine here)
	}{
		{"init payload", nil, `{"Authorization":"Bearer s3cret"}`, "UNAVAILABLE"},
		{"init payload, lower case key", nil, `{"authorization":"bearer s3cret"}`, "UNAVAILABLE"},
		{"upgrade header", http.Header{"Authorization": {"Bearer s3cret"}}, `{}`, "UNAVAILABLE"},
		{"payload wins over header", http.Header{"Authorization": {"Bearer wrong"}}, `{"Authorization":"Bearer s3cret"}`, "UNAVAILABLE"},
		{"wrong token", nil, `{"Authorization":"Bearer wrong"}`, "UNAUTHENTICATED"},
		{"no token", nil, `{}`, "UNAUTHENTICATED"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := dialWS(t, b, tt.header)
			w.init(tt.payload)
			w.subscribe("m", m, nil)
			_, errs := nextPayload(t, w.expect("next", "m"))
			if len(errs) == 0 || errs[0].Extensions["code"] != tt.code {
				t.Errorf("errors %+v; want code %s", errs, tt.code)
			}
			w.expect("complete", "m")
		})
	}
}

// TestWebsocketOperations: ping gets pong (with the ping's payload);
// queries and subscriptions send their results in "next" messages, then
// "complete"; operations run side by side.
func TestWebsocketOperations(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	ref := oeis.MustLoad(t)
	w := dialWS(t, b, nil)
	w.sendRaw(`{"type":"ping","payload":{"seq":7}}`) // allowed before init
	if m := w.expect("pong", ""); string(m.Payload) != `{"seq":7}` {
		t.Errorf("pong payload %s; want the ping's", m.Payload)
	}
	w.init("{}")
	w.alive()
	w.sendRaw(`{"type":"pong"}`) // unasked pongs are ignored
	w.alive()

	w.subscribe("q", `query Six($n: Int!) { count(n: $n) { total } }`, map[string]any{"n": 6})
	data, errs := nextPayload(t, w.expect("next", "q"))
	if want := `{"count":{"total":"` + strconv.FormatUint(ref[6].Total, 10) + `"}}`; string(data) != want || len(errs) > 0 {
		t.Errorf("query: data %s, errors %+v; want %s", data, errs, want)
	}
	w.expect("complete", "q")

	// Without a store the board cannot change: boardProgress sends it
	// once and completes.
	w.subscribe("s", `subscription { boardProgress(n: 8) { n state total } }`, nil)
	data, errs = nextPayload(t, w.expect("next", "s"))
	if want := `{"boardProgress":{"n":8,"state":"UNKNOWN","total":"` + strconv.FormatUint(ref[8].Total, 10) + `"}}`; string(data) != want || len(errs) > 0 {
		t.Errorf("subscription: data %s, errors %+v; want %s", data, errs, want)
	}
	w.expect("complete", "s")

	// A resolver's error is an execution error: "next" with it, then
	// "complete".
	w.subscribe("bad", `subscription { boardProgress(n: 0) { n } }`, nil)
	if _, errs := nextPayload(t, w.expect("next", "bad")); len(errs) == 0 || errs[0].Extensions["code"] != "BAD_USER_INPUT" {
		t.Errorf("boardProgress(n: 0): errors %+v; want BAD_USER_INPUT", errs)
	}
	w.expect("complete", "bad")
}

// TestWebsocketErrorsBeforeExecution: a document that does not parse or
// validate, or is over the depth or complexity limit, gets one "error"
// message with the GraphQL errors (codes from the error presenter) and
// no "complete"; the connection stays and the id is free again.
func TestWebsocketErrorsBeforeExecution(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.ComplexityLimit = 50; c.DepthLimit = 3 })
	w := dialWS(t, b, nil)
	w.init("{}")
	for _, tt := range []struct{ query, code, reason string }{
		{`{ count(n: 4 { total } }`, "GRAPHQL_PARSE_FAILED", ""},
		{`{ nothing }`, "GRAPHQL_VALIDATION_FAILED", ""},
		{`query($n: Int!) { count(n: $n) { total } }`, "GRAPHQL_VALIDATION_FAILED", ""}, // variable missing
		{`{ solutions(n: 8, first: 100) { edges { cursor } } }`, "BAD_USER_INPUT", "COMPLEXITY_LIMIT_EXCEEDED"},
		{`{ solutions(n: 8, first: 1) { edges { node { placement } } } }`, "BAD_USER_INPUT", "DEPTH_LIMIT_EXCEEDED"},
	} {
		w.subscribe("1", tt.query, nil)
		errs := gqlErrors(t, w.expect("error", "1"))
		if errs[0].Extensions["code"] != tt.code || (tt.reason != "" && errs[0].Extensions["reason"] != tt.reason) {
			t.Errorf("%s: errors %+v; want code %s, reason %q", tt.query, errs, tt.code, tt.reason)
		}
		w.alive() // and no "complete" came before the pong
	}
}

// TestWebsocketComplete: the client's "complete" stops its subscription:
// nothing more comes for it, and its id may be used again at once.
func TestWebsocketComplete(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	w := dialWS(t, b, nil)
	w.init("{}")
	w.subscribe("s", endless, nil)
	w.expect("next", "s")
	w.send(apitest.WSMessage{ID: "s", Type: "complete"})
	w.send(apitest.WSMessage{ID: "unknown", Type: "complete"}) // ignored
	time.Sleep(200 * time.Millisecond)                         // four polls of the board
	w.alive()                                                  // no "complete" for s came first
	w.subscribe("s", endless, nil)
	w.expect("next", "s")
}

// TestWebsocketSubscriptionCap: past WSMaxSubscriptions operations on one
// connection, a subscribe gets an "error" message saying the cap; the
// connection stays, and once an operation ends another may start.
func TestWebsocketSubscriptionCap(t *testing.T) {
	t.Parallel()
	b := setupStore(t, func(c *server.Config) { c.WSMaxSubscriptions = 2 })
	w := dialWS(t, b, nil)
	w.init("{}")
	w.subscribe("a", endless, nil)
	w.expect("next", "a")
	w.subscribe("b", endless, nil)
	w.expect("next", "b")

	w.subscribe("c", endless, nil)
	errs := gqlErrors(t, w.expect("error", "c"))
	e := errs[0]
	if e.Extensions["code"] != "BAD_USER_INPUT" || e.Extensions["reason"] != server.ReasonSubscriptionLimit || !strings.Contains(e.Message, "at most 2 ") {
		t.Errorf("over the cap: %+v; want BAD_USER_INPUT, %s, the cap in the message", e, server.ReasonSubscriptionLimit)
	}
	w.alive()

	w.send(apitest.WSMessage{ID: "a", Type: "complete"})
	w.subscribe("c", endless, nil)
	w.expect("next", "c")
}

// TestWebsocketConnectionCap: past its share of websockets
// (WSMaxConnectionsPerClient) a client's upgrade is refused with 429
// RATE_LIMITED, past the total (WSMaxConnections) any client's with 503
// UNAVAILABLE, both with Retry-After and a GraphQL error body saying the
// bound; once one closes, its client's next is accepted.
func TestWebsocketConnectionCap(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.WSMaxConnections, c.WSMaxConnectionsPerClient = 3, 2 })
	first := dialWS(t, b, nil)
	first.init("{}")
	second := dialWS(t, b, nil)
	second.init("{}")

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	refused := func(client *apitest.Bundle, status int, code, says string) {
		t.Helper()
		c, resp, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: client.HTTP})
		if err == nil {
			c.CloseNow()
			t.Fatalf("a websocket past the bounds was accepted; want %d", status)
		}
		if resp == nil || resp.StatusCode != status || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("past the bounds: %v, %+v; want %d with Retry-After", err, resp, status)
		}
		body, _ := io.ReadAll(resp.Body)
		var r apitest.Response
		if json.Unmarshal(body, &r) != nil || r.Code() != code || !strings.Contains(r.Message(), says) {
			t.Errorf("refusal body %s; want %s saying %q", body, code, says)
		}
	}
	refused(b, http.StatusTooManyRequests, "RATE_LIMITED", "your address has 2 websockets open")
	other := dialWS(t, from(t, b, "127.0.0.2"), nil) // another client: served
	other.init("{}")
	refused(from(t, b, "127.0.0.3"), http.StatusServiceUnavailable, "UNAVAILABLE", "the server has 3 websockets open")
	second.alive() // those open are not disturbed

	first.c.Close(websocket.StatusNormalClosure, "")
	opts := &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: b.HTTP}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _, err := websocket.Dial(ctx, wsURL(b), opts)
		if err == nil {
			w := &wsClient{t: t, ctx: ctx, c: c}
			defer c.CloseNow()
			w.init("{}")
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no websocket accepted after one closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebsocketReadLimit: a message larger than WSMaxMessageBytes closes
// the socket with 1009 (message too big); one within it is read.
func TestWebsocketReadLimit(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.WSMaxMessageBytes = 2048 })
	w := dialWS(t, b, nil)
	w.init("{}")
	w.sendRaw(`{"type":"ping","payload":{"pad":"` + strings.Repeat("x", 1900) + `"}}`)
	w.expect("pong", "")
	w.sendRaw(`{"type":"ping","payload":{"pad":"` + strings.Repeat("x", 4096) + `"}}`)
	w.expectClose(websocket.StatusMessageTooBig, "")
}

// TestWebsocketKeepAlive: the server pings every ping interval; a peer
// that answers stays, one that does not is disconnected once the pong
// timeout has passed.
func TestWebsocketKeepAlive(t *testing.T) {
	t.Parallel()
	const interval, timeout = 100 * time.Millisecond, 500 * time.Millisecond
	b := apitest.Setup(t, func(c *server.Config) { c.WSPingInterval, c.WSPongTimeout = interval, timeout })

	// The websocket library answers pings while the client reads: the
	// ping message sent after 10 intervals gets its pong.
	live := dialWS(t, b, nil)
	live.init("{}")
	go func() {
		time.Sleep(10 * interval)
		_ = live.c.Write(live.ctx, websocket.MessageText, []byte(`{"type":"ping"}`))
	}()
	live.expect("pong", "")

	// A raw client that reads but never answers.
	u, err := url.Parse(b.Base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := rawHandshake(t, conn, u.Host)
	writeMaskedFrame(t, conn, 0x1, []byte(`{"type":"connection_init"}`))
	if op, p, err := readFrame(br); err != nil || op != 0x1 || string(p) != `{"type":"connection_ack"}` {
		t.Fatalf("after init: opcode %d %q %v; want the acknowledgement", op, p, err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(15 * time.Second))
	pings := 0
	for {
		op, _, err := readFrame(br)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("still open %s after %d unanswered pings", time.Since(start), pings)
			}
			break // closed by the server
		}
		if op == 0x9 {
			pings++
		}
	}
	if took := time.Since(start); pings == 0 || took < interval+timeout-50*time.Millisecond {
		t.Errorf("closed after %s and %d pings; want a ping, then the pong timeout of %s", took, pings, timeout)
	}
}

// TestWebsocketServerClose: Server.Close closes every websocket with
// 1001 (going away).
func TestWebsocketServerClose(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	w := dialWS(t, b, nil)
	w.init("{}")
	w.subscribe("s", endless, nil)
	w.expect("next", "s")
	idle := dialWS(t, b, nil) // not initialised yet
	b.Server.Close()
	w.expectClose(websocket.StatusGoingAway, "the server is shutting down")
	idle.expectClose(websocket.StatusGoingAway, "the server is shutting down")
}

// rawHandshake upgrades conn to a graphql-transport-ws websocket by hand
// and returns the reader of what follows.
func rawHandshake(t *testing.T, conn net.Conn, host string) *bufio.Reader {
	t.Helper()
	req := "GET /graphql HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
		"Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %+v", err, resp)
	}
	return br
}

// writeMaskedFrame writes one final frame as a client must: masked.
func writeMaskedFrame(t *testing.T, conn net.Conn, opcode byte, payload []byte) {
	t.Helper()
	if len(payload) > 125 {
		t.Fatal("writeMaskedFrame writes short frames only")
	}
	mask := [4]byte{0x12, 0x34, 0x56, 0x78}
	frame := append([]byte{0x80 | opcode, 0x80 | byte(len(payload))}, mask[:]...)
	for i, c := range payload {
		frame = append(frame, c^mask[i%4])
	}
	if _, err := conn.Write(frame); err != nil {
		t.Fatal(err)
	}
}

// readFrame reads one frame from the server (unmasked).
func readFrame(br *bufio.Reader) (opcode byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126, 127:
		ext := make([]byte, map[uint64]int{126: 2, 127: 8}[n])
		if _, err := io.ReadFull(br, ext); err != nil {
			return 0, nil, err
		}
		n = 0
		for _, c := range ext {
			n = n<<8 | uint64(c)
		}
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(br, payload)
	return h[0] & 0x0f, payload, err
}
