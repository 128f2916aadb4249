package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// observed is a server whose request log (JSON) and operations a test
// reads.
type observed struct {
	*apitest.Bundle
	logs *apitest.SyncBuffer
	mu   sync.Mutex
	ops  []server.Operation
}

func setupObserved(t *testing.T) *observed {
	t.Helper()
	o := &observed{logs: &apitest.SyncBuffer{}}
	o.Bundle = apitest.Setup(t, func(c *server.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(o.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.OnOperation = func(op server.Operation) {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.ops = append(o.ops, op)
		}
	})
	return o
}

// requestLine returns the request log line with request id id, waiting a
// little for it: a handler's line comes after its answer.
func (o *observed) requestLine(t *testing.T, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(o.logs.String()))
		for sc.Scan() {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("log line is not JSON: %v: %s", err, sc.Text())
			}
			if line["msg"] == "request" && line["request_id"] == id {
				return line
			}
		}
	}
	t.Fatalf("no request line with id %q in:\n%s", id, o.logs.String())
	return nil
}

func (o *observed) operations() []server.Operation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]server.Operation(nil), o.ops...)
}

// TestRequestLog: one JSON line per request with the client's request id
// (echoed in the answer), the operation's name, status and size; an id
// that is not sane is replaced; a websocket is logged when it closes.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	o := setupObserved(t)

	r := o.Post(t, apitest.Request{Query: `query Four { count(n: 4) { total } }`}, "X-Request-Id", "client-id-1")
	if r.Status != 200 || r.Header.Get("X-Request-Id") != "client-id-1" {
		t.Fatalf("status %d, X-Request-Id %q; want 200, the client's id", r.Status, r.Header.Get("X-Request-Id"))
	}
	line := o.requestLine(t, "client-id-1")
	if line["operation"] != "Four" || line["method"] != "POST" || line["path"] != "/graphql" ||
		line["status"] != float64(200) || line["bytes"] != float64(len(r.Raw)) || line["duration_ms"] == nil {
		t.Errorf("request line %v; want operation Four, POST /graphql, status 200, %d bytes, a duration", line, len(r.Raw))
	}

	for _, bad := range []string{"two words", strings.Repeat("x", 200), `quote"d`} {
		r := o.Raw(t, "GET", o.Base+"/healthz", nil, "X-Request-Id", bad)
		id := r.Header.Get("X-Request-Id")
		if id == "" || id == bad {
			t.Errorf("X-Request-Id %q answered with %q; want a new id", bad, id)
			continue
		}
		if line := o.requestLine(t, id); line["path"] != "/healthz" || line["level"] != "DEBUG" || line["operation"] != nil {
			t.Errorf("/healthz line %v; want path /healthz at DEBUG, no operation", line)
		}
	}

	// A subscription over a websocket goes through the log's writer (it
	// must hijack the connection) and is logged with 101 when it closes.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	sub := o.Subscribe(t, ctx, `subscription Progress { boardProgress(n: 8) { n state } }`, nil)
	var out struct{ BoardProgress struct{ N int } }
	if !sub.Next(t, &out) || out.BoardProgress.N != 8 {
		t.Fatalf("subscription over the logging writer: %+v", out)
	}
	sub.Close()
	found := false
	for deadline := time.Now().Add(5 * time.Second); !found && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		found = strings.Contains(o.logs.String(), `"operation":"Progress","status":101`)
	}
	if !found {
		t.Errorf("no websocket line with the subscription's name and status 101:\n%s", o.logs.String())
	}
}

// TestOperationOutcomes: OnOperation hears of each query and mutation,
// named, with "ok" or the first error's code; not of subscriptions.
func TestOperationOutcomes(t *testing.T) {
	t.Parallel()
	o := setupObserved(t)
	o.Post(t, apitest.Request{Query: `query Good { count(n: 5) { total } }`})
	o.Post(t, apitest.Request{Query: `query Oops { count(n: 0) { total } }`})
	o.Post(t, apitest.Request{Query: `{ count(n: 5) { total } }`})
	o.Post(t, apitest.Request{Query: `query Broken { count(n: 5 { total } }`, OperationName: "Broken"})
	o.Post(t, apitest.Request{Query: `mutation Ask { precompute(n: 5) { n } }`})
	want := []server.Operation{
		{Name: "Good", Outcome: server.OutcomeOK},
		{Name: "Oops", Outcome: "BAD_USER_INPUT"},
		{Name: "", Outcome: server.OutcomeOK},
		{Name: "Broken", Outcome: "GRAPHQL_PARSE_FAILED"},
		{Name: "Ask", Outcome: "UNAUTHENTICATED"},
	}
	got := o.operations()
	if len(got) != len(want) {
		t.Fatalf("operations %+v; want %d", got, len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Outcome != want[i].Outcome || got[i].Duration <= 0 {
			t.Errorf("operation %d: %+v; want %+v with a duration", i, got[i], want[i])
		}
	}
}

// TestRateLimit: with a limit of 1 request a second in bursts of 3, the
// fourth quick request of a client is refused with 429, Retry-After and
// RATE_LIMITED; another client address still passes, and so does the
// first client a second later. Other paths are not limited.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.RateLimit, c.RateBurst = 1, 3 })
	query := apitest.Request{Query: `{ count(n: 4) { total } }`}
	for i := range 3 {
		if r := b.Post(t, query); r.Status != 200 {
			t.Fatalf("request %d of a burst of 3: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := b.Post(t, query)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "1" || r.Code() != "RATE_LIMITED" {
		t.Fatalf("4th request: %d, Retry-After %q, %s; want 429, 1, RATE_LIMITED", r.Status, r.Header.Get("Retry-After"), r.Raw)
	}
	if r := b.Raw(t, "GET", b.Base+"/healthz", nil); r.Status != 200 {
		t.Errorf("/healthz of a limited client: %d", r.Status)
	}

	// Another address of the loopback network is another client.
	other := *b
	other.HTTP = &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)},
	}).DialContext}}
	if r := other.Post(t, query); r.Status != 200 {
		t.Errorf("another client (127.0.0.2): %d %s", r.Status, r.Raw)
	}

	time.Sleep(1100 * time.Millisecond) // one token back
	if r := b.Post(t, query); r.Status != 200 {
		t.Errorf("after a second: %d %s", r.Status, r.Raw)
	}
	if r := b.Post(t, query); r.Status != http.StatusTooManyRequests {
		t.Errorf("a second request after a second: %d; want 429", r.Status)
	}
}
