package server_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/introspection"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// The abuse suite: one test per way a hostile client has tried to exhaust
// the server, each against the real server over real sockets, with the
// default limits. The websocket attacks are in abuse_websocket_test.go.

// fragmentDoubling is a 1.3 kB document whose fragments each spread the
// next one twice: 2^levels fields once spread.
func fragmentDoubling(levels int) string {
	var b strings.Builder
	b.WriteString("query { solutions(n: 8, first: 1) { nodes { ...F0 } } }\n")
	for i := range levels {
		fmt.Fprintf(&b, "fragment F%d on Solution { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Solution { n }\n", levels)
	return b.String()
}

// answersNext checks that the server still answers a small query.
func answersNext(t *testing.T, b *apitest.Bundle) {
	t.Helper()
	var data struct{ Count struct{ Total string } }
	b.Query(t, "{ count(n: 6) { total } }", nil, &data)
	if data.Count.Total == "" {
		t.Fatal("no total for N=6")
	}
}

// TestAbuseFragmentDoubling: the 30-level fragment doubling is refused in
// under 100 ms more than a document refused for a syntax error takes
// (measured first, so that the bound holds on a busy machine).
func TestAbuseFragmentDoubling(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	start := time.Now()
	if r := b.Post(t, apitest.Request{Query: "{ count(n: 8) { total }"}); r.Status != http.StatusBadRequest {
		t.Fatalf("a syntax error got status %d", r.Status)
	}
	baseline := time.Since(start)
	start = time.Now()
	r := b.Post(t, apitest.Request{Query: fragmentDoubling(30)})
	took := time.Since(start)
	if r.Status != http.StatusBadRequest || r.Reason() != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Fatalf("the 30-level fragment doubling got status %d, reason %q:\n%s", r.Status, r.Reason(), r.Raw)
	}
	t.Logf("the 30-level fragment doubling was refused after %s (a syntax error: %s)", took, baseline)
	if took > baseline+100*time.Millisecond {
		t.Errorf("the 30-level fragment doubling was refused after %s, a syntax error after %s: want under 100ms more", took, baseline)
	}
	answersNext(t, b)
}

// TestAbuseDocumentShapes sends, for every shape whose validation grows
// faster than its size, a document four times the largest the limits let
// through: each is refused by the limits, before validation would have
// taken long.
func TestAbuseDocumentShapes(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for name, shape := range documentShapes {
		t.Run(name, func(t *testing.T) {
			k := largestAccepted(t, b.Server, shape)
			r := b.Post(t, apitest.Request{Query: shape(4 * k)})
			if r.Status != http.StatusBadRequest || !strings.HasSuffix(r.Reason(), "_LIMIT_EXCEEDED") {
				t.Errorf("k=%d: status %d, reason %q: %.300s", 4*k, r.Status, r.Reason(), r.Raw)
			}
		})
	}
	answersNext(t, b)
}

// TestHonestDocumentsPass: the limits let through what honest clients
// send, GraphiQL's introspection query first.
func TestHonestDocumentsPass(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	r := b.Post(t, apitest.Request{Query: introspection.Query})
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("the introspection query: status %d: %.500s", r.Status, r.Raw)
	}
	page := `query($n: Int!, $after: String) { solutions(n: $n, first: 100, after: $after) {
		edges { cursor node { id placement rows rank uniqueRank orbitSize isCanonical canonical { placement } } }
		pageInfo { hasNextPage endCursor } totalCount source } }`
	if r := b.Post(t, apitest.Request{Query: page, Variables: map[string]any{"n": 8}}); r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("a page: status %d: %.500s", r.Status, r.Raw)
	}
}

// heapAfterGC is the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAbuseMemory sends refused one-megabyte documents of every kind the
// caches could keep (not run in parallel: it reads the process's heap):
// the heap grows by less than 100 MiB.
func TestAbuseMemory(t *testing.T) {
	b := apitest.Setup(t)
	const mb = 1 << 20
	pad := func(i int, doc string) string {
		return fmt.Sprintf("# %d %s\n%s", i, strings.Repeat("x", mb-len(doc)-64), doc)
	}
	kinds := map[string]func(i int) apitest.Request{
		// past the token limit
		"tokens": func(i int) apitest.Request {
			return apitest.Request{Query: fmt.Sprintf("{ count(n: %d) {", i%8+1) + strings.Repeat(" total", mb/6-10) + " } }"}
		},
		// fails validation
		"invalid": func(i int) apitest.Request {
			return apitest.Request{Query: pad(i, "{ count(n: 8) { nosuchfield } }")}
		},
		// valid, but over the complexity limit with its variables
		"complex": func(i int) apitest.Request {
			return apitest.Request{Query: pad(i, "query($k: Int) { solutions(n: 8, first: $k) { nodes { placement rows matrix svg symmetries { solution { placement } } } } }"),
				Variables: map[string]any{"k": 1000}}
		},
		// a persisted query that does not validate
		"persisted": func(i int) apitest.Request {
			q := pad(i, "{ count(n: 8) { nosuchfield } }")
			return apitest.Request{Query: q, Extensions: map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": sha256Hex(q)}}}
		},
	}
	before := heapAfterGC()
	for kind, req := range kinds {
		for i := range 50 {
			r := b.Post(t, req(i))
			if r.Status == http.StatusOK && len(r.Errors) == 0 {
				t.Fatalf("%s document %d was not refused", kind, i)
			}
		}
	}
	answersNext(t, b)
	grew := int64(heapAfterGC()) - int64(before)
	t.Logf("4 × 50 refused 1 MB documents: the heap grew by %.1f MiB", float64(grew)/(1<<20))
	if grew > 100<<20 {
		t.Errorf("4 × 50 refused 1 MB documents grew the heap by %.1f MiB, want less than 100 MiB", float64(grew)/(1<<20))
	}
}

// TestAbusePageCache asks for 400 different pages of 1,000 solutions of
// N=16 (about 16 MB of placements) with a page cache of 4 MiB (not run in
// parallel: it reads the process's heap): the heap keeps less than the
// pages.
func TestAbusePageCache(t *testing.T) {
	b := apitest.Setup(t, func(c *server.Config) { c.Graph.PageCacheBytes = 4 << 20 })
	before := heapAfterGC()
	for req := range 50 {
		var q strings.Builder
		q.WriteString("{")
		for i := range 8 {
			fmt.Fprintf(&q, " p%d: solutions(n: 16, first: %d) { pageInfo { hasNextPage } }", i, 1000-req*8-i)
		}
		q.WriteString(" }")
		if r := b.Post(t, apitest.Request{Query: q.String()}); r.Status != http.StatusOK || len(r.Errors) > 0 {
			t.Fatalf("request %d: status %d: %.300s", req, r.Status, r.Raw)
		}
	}
	grew := int64(heapAfterGC()) - int64(before)
	t.Logf("400 pages of about 1,000 solutions of N=16: the heap grew by %.1f MiB", float64(grew)/(1<<20))
	if grew > 12<<20 {
		t.Errorf("400 pages with a page cache of 4 MiB grew the heap by %.1f MiB, want less than 12 MiB", float64(grew)/(1<<20))
	}
}

// dial opens a raw connection to the bundle's server.
func dial(t *testing.T, b *apitest.Bundle) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(b.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin waits for the server to close c and returns how long that
// took, failing the test if it takes longer than limit.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, c)
	took := time.Since(start)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %s", limit)
	}
	return took
}

// TestAbuseSlowBody: a request whose headers arrive but whose body stalls
// is cut within 15 s.
func TestAbuseSlowBody(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	c := dial(t, b)
	fmt.Fprintf(c, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\": ")
	took := closedWithin(t, c, 15*time.Second)
	t.Logf("stalled body closed after %s", took)
	answersNext(t, b)
}

// TestAbuseSlowHeaders: headers that never end are cut within the header
// timeout.
func TestAbuseSlowHeaders(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.ReadHeaderTimeout = time.Second })
	c := dial(t, b)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	for range 3 {
		if _, err := c.Write([]byte("a")); err != nil {
			break // closed already
		}
		time.Sleep(300 * time.Millisecond)
	}
	took := closedWithin(t, c, 10*time.Second)
	t.Logf("stalled headers closed after %s", took)
}

// TestAbuseIdleConnection: a keep-alive connection that sends nothing
// after its request is closed after the idle timeout.
func TestAbuseIdleConnection(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.IdleTimeout = time.Second })
	c := dial(t, b)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	took := closedWithin(t, c, 10*time.Second)
	t.Logf("idle connection closed after %s", took)
}

// TestAbuseLargeHeaders: headers past the cap are refused with 431.
func TestAbuseLargeHeaders(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.MaxHeaderBytes = 8 << 10 })
	c := dial(t, b)
	// net/http reads 4 KiB past the cap before it refuses.
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n", strings.Repeat("a", 16<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB of headers over a cap of 8 KiB: status %d, want 431", resp.StatusCode)
	}
	answersNext(t, b)
}

// from returns a client whose connections come from the loopback address
// ip: another client, as far as the server's fair share is concerned.
func from(t *testing.T, b *apitest.Bundle, ip string) *apitest.Bundle {
	t.Helper()
	other := *b
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	// Connections are kept for reuse, as a browser does, rather than
	// closed past the second idle one and opened anew.
	other.HTTP = &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 100}}
	return &other
}

// fromWithin is from, with at most conns connections open at once and
// no more idle than a client may keep: an attacker kept within its shares
// of connections, so that what is tested is another bound. (Past its idle
// share, the server closes an idle connection as the client may be
// sending on it.)
func fromWithin(t *testing.T, b *apitest.Bundle, ip string, conns int) *apitest.Bundle {
	t.Helper()
	c := from(t, b, ip)
	tr := c.HTTP.Transport.(*http.Transport)
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = conns, server.DefaultConfig().MaxIdleConnectionsPerClient
	return c
}

// heavyAliases is one request of k aliases of solutionAt, each walking
// N=14's listing to a different rank near its end: about 0.25 s of solver
// each, 390 under the complexity limit.
func heavyAliases(k int, distinct bool) string {
	var q strings.Builder
	q.WriteString("{")
	for i := range k {
		rank := 365596
		if distinct {
			rank -= i
		}
		fmt.Fprintf(&q, ` a%d: solutionAt(n: 14, rank: "%d") { placement }`, i, rank)
	}
	q.WriteString(" }")
	return q.String()
}

// TestAbuseStarvation: beside four requests of 390 expensive aliases
// each, from one client, another client's small query answers in under
// 500 ms more than it takes alone (measured first, in the same run, so
// that the bound holds on a machine busy with other work). The heavy
// requests end at their time budget. Not run in parallel: the other
// tests' servers would compete for this process's cores.
func TestAbuseStarvation(t *testing.T) {
	b := apitest.Setup(t)
	small := from(t, b, "127.0.0.2")
	smallest := func(round string) time.Duration {
		var slowest time.Duration
		for i := range 5 {
			start := time.Now()
			var data struct {
				Solutions struct{ Nodes []struct{ Placement []int } }
			}
			small.Query(t, fmt.Sprintf("{ solutions(n: 12, first: 10) { nodes { placement } } } # %s %d", round, i), nil, &data)
			slowest = max(slowest, time.Since(start))
			if len(data.Solutions.Nodes) != 10 {
				t.Fatalf("a page of %d solutions, want 10", len(data.Solutions.Nodes))
			}
			time.Sleep(200 * time.Millisecond)
		}
		return slowest
	}
	alone := smallest("alone")
	var wg sync.WaitGroup
	heavy := make(chan *apitest.Response, 4)
	for range 4 {
		wg.Go(func() { heavy <- b.Post(t, apitest.Request{Query: heavyAliases(390, true)}) })
	}
	time.Sleep(500 * time.Millisecond) // the heavy requests hold every slot
	beside := smallest("beside")
	t.Logf("the slowest of 5 small queries took %s alone, %s beside the heavy ones", alone, beside)
	if beside > alone+500*time.Millisecond {
		t.Errorf("a small query beside the heavy ones took %s, %s alone: delayed by more than 500ms", beside, alone)
	}
	wg.Wait()
	close(heavy)
	for r := range heavy {
		for _, e := range r.Errors {
			if e.Extensions["code"] != "TIMEOUT" {
				t.Errorf("the heavy request got %v: %s", e.Extensions["code"], e.Message)
			}
		}
	}
}

// TestSolverBudget: one request of 390 expensive aliases alone stops
// when its fields together have used the solver budget, before its time
// budget: the field running then says so, and so do the fields after it.
func TestSolverBudget(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.Graph.SolverBudget = 2 * time.Second })
	start := time.Now()
	r := b.Post(t, apitest.Request{Query: heavyAliases(390, true)})
	took := time.Since(start)
	if r.Code() != "TIMEOUT" || !strings.Contains(r.Message(), "used up its solver time of 2s") {
		t.Fatalf("390 expensive aliases: %q: %.300s", r.Code(), r.Message())
	}
	budgeted := 0
	for _, e := range r.Errors {
		if strings.Contains(e.Message, "solver time of 2s") {
			budgeted++
		}
	}
	t.Logf("%d fields answered, %d stopped by the budget, after %s", 390-len(r.Errors), budgeted, took)
	if took > 8*time.Second {
		t.Errorf("the request took %s: its solver budget of 2s did not stop it", took)
	}
}

// TestIdenticalFieldsComputedOnce: 390 aliases of the same expensive
// solutionAt cost one walk, within the solver budget.
func TestIdenticalFieldsComputedOnce(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	r := b.Post(t, apitest.Request{Query: heavyAliases(390, false)})
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("390 identical aliases: status %d, %.300s", r.Status, r.Raw)
	}
	if n := strings.Count(string(r.Data), "placement"); n != 390 {
		t.Errorf("%d answers, want 390", n)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
