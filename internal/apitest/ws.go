package apitest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// WSMessage is a message of the graphql-transport-ws protocol.
type WSMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Subscription is one subscription over a real websocket, speaking
// graphql-transport-ws.
type Subscription struct {
	conn *websocket.Conn
	ctx  context.Context
}

// Subscribe opens a websocket to the server (subprotocol
// graphql-transport-ws), initialises the connection and subscribes to
// query. The connection closes when the test ends.
func (b *Bundle) Subscribe(t testing.TB, ctx context.Context, query string, vars map[string]any) *Subscription {
	t.Helper()
	wsURL := "ws" + strings.TrimPrefix(b.URL, "http")
	c, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: b.HTTP})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "graphql-transport-ws" {
		t.Fatalf("subprotocol %q", p)
	}
	s := &Subscription{conn: c, ctx: ctx}
	if err := wsjson.Write(ctx, c, WSMessage{Type: "connection_init", Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if m := s.Read(t); m.Type != "connection_ack" {
		t.Fatalf("after connection_init: %+v", m)
	}
	payload, err := json.Marshal(Request{Query: query, Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	if err := wsjson.Write(ctx, c, WSMessage{ID: "1", Type: "subscribe", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	return s
}

// Read returns the next message other than pings and pongs.
func (s *Subscription) Read(t testing.TB) WSMessage {
	t.Helper()
	for {
		var m WSMessage
		if err := wsjson.Read(s.ctx, s.conn, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "ping" && m.Type != "pong" && m.Type != "ka" {
			return m
		}
	}
}

// Next decodes the data of the next "next" message into out; false when
// the subscription completed instead. An error message fails the test.
func (s *Subscription) Next(t testing.TB, out any) bool {
	t.Helper()
	m := s.Read(t)
	switch m.Type {
	case "complete":
		return false
	case "next":
	default:
		t.Fatalf("unexpected message %+v %s", m, m.Payload)
	}
	var p struct {
		Data   json.RawMessage `json:"data"`
		Errors []Error         `json:"errors"`
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil || len(p.Errors) > 0 {
		t.Fatalf("next message %s: %v", m.Payload, err)
	}
	if err := json.Unmarshal(p.Data, out); err != nil {
		t.Fatalf("decoding %s: %v", p.Data, err)
	}
	return true
}

// Close closes the websocket, as a client that goes away does.
func (s *Subscription) Close() { s.conn.CloseNow() }
