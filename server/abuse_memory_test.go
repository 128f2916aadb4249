package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/boardsvg"
	"github.com/nqueens/nqueens/internal/memlimit"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// The memory budget under attack: many clients asking for heavy answers
// at once, one client flooding large and slow bodies, documents whose
// answers are far larger than they are. Each test applies the default
// budget's soft limit to the test's process, as serve does, and checks
// what every attack checks (aftermath_test.go).

// quietLogs logs warnings and errors only, shown when the test ends: a
// flood's tens of thousands of request lines would otherwise stay in the
// bundle's log, in the heap the test measures.
func quietLogs(t *testing.T) func(*server.Config) {
	return func(c *server.Config) {
		var logs apitest.SyncBuffer
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
		t.Cleanup(func() {
			if s := logs.String(); s != "" {
				t.Logf("the server logged:\n%s", s)
			}
		})
	}
}

// withDefaultBudget gives the process the runtime's soft limit and GOGC
// of the default memory budget (as serve does without settings) until
// the test ends.
func withDefaultBudget(t *testing.T) {
	t.Helper()
	budget, err := memlimit.Decide(memlimit.Inputs{Default: server.DefaultMemoryBudget})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(budget.Apply())
	t.Logf("the default budget: %s, the runtime's soft limit %s, GOGC %d", memlimit.Format(budget.Bytes), memlimit.Approx(budget.SoftLimit), budget.GOGC)
}

// heavyRequest is an honest request with a heavy answer, and how to check
// that answer against the solver.
type heavyRequest struct {
	name  string
	query string
	check func(t *testing.T, data json.RawMessage)
}

// heavyRequests are what the flood's clients ask for: a page of all the
// solutions of N=10 with their forms and pictures (1.9 MB), introspection
// of the whole schema three times over, two completions of boards of
// 10,000 rows, filtered counts and pages. Each holds megabytes while
// answered (what its answer and its searches take).
func heavyRequests(b *apitest.Bundle) []heavyRequest {
	return []heavyRequest{
		{"a page of N=10 with pictures", "{ solutions(n: 10, first: 1000) { nodes { placement rows matrix svg } } }", func(t *testing.T, data json.RawMessage) {
			var got struct {
				Solutions struct {
					Nodes []struct {
						Placement solver.Placement
						Rows      []string
						Matrix    [][]int
						Svg       string
					}
				}
			}
			decode(t, data, &got)
			want, err := solver.Page(context.Background(), solver.PageQuery{N: 10, Limit: 1000})
			if err != nil || len(got.Solutions.Nodes) != len(want) {
				t.Fatalf("%d solutions of N=10, the solver has %d (%v)", len(got.Solutions.Nodes), len(want), err)
			}
			for i, p := range want {
				n := got.Solutions.Nodes[i]
				if n.Placement.Compare(p) != 0 || !slices.Equal(n.Rows, p.Rows()) || fmt.Sprint(n.Matrix) != fmt.Sprint(p.Matrix()) || n.Svg != boardsvg.Render(p, 400) {
					t.Fatalf("solution %d: got %v, the solver's is %v", i, n.Placement, p)
				}
			}
		}},
		{"introspection ×3", aliases(3, "__schema { types { name description fields { name description args { name description type { name kind } } } } }"), func(t *testing.T, data json.RawMessage) {
			var got map[string]struct {
				Types []struct{ Name string }
			}
			decode(t, data, &got)
			types := graph.NewSchema(b.Server.Resolver()).Schema().Types
			for alias, s := range got {
				if len(s.Types) != len(types) {
					t.Fatalf("%s: %d types, the schema has %d", alias, len(s.Types), len(types))
				}
				for _, typ := range s.Types {
					if types[typ.Name] == nil {
						t.Fatalf("%s: type %q is not in the schema", alias, typ.Name)
					}
				}
			}
		}},
		{"two completions of N=10,000", `{ a: complete(n: 10000, queens: [{row: 0, col: 1}]) { state placement } b: complete(n: 10000, queens: [{row: 5000, col: 7}]) { state placement } }`,
			func(t *testing.T, data json.RawMessage) {
				var got map[string]struct {
					State     string
					Placement solver.Placement
				}
				decode(t, data, &got)
				for alias, pin := range map[string]solver.Square{"a": {Row: 0, Col: 1}, "b": {Row: 5000, Col: 7}} {
					c := got[alias]
					if c.State != "COMPLETED" || solver.ValidateN(10000, c.Placement) != nil || c.Placement[pin.Row] != pin.Col {
						t.Fatalf("%s: %s, a placement of %d rows (valid: %v)", alias, c.State, len(c.Placement), solver.ValidateN(10000, c.Placement))
					}
				}
			}},
		{"filtered counts and pages", `{ count(n: 10, where: {queens: [{row: 0, col: 1}]}) { total unique squareCounts }
			solutions(n: 11, first: 200, where: {empty: [{row: 3, col: 3}]}) { totalCount nodes { placement svg } } }`, func(t *testing.T, data json.RawMessage) {
			var got struct {
				Count struct {
					Total, Unique string
					SquareCounts  [][]string
				}
				Solutions struct {
					TotalCount string
					Nodes      []struct {
						Placement solver.Placement
						Svg       string
					}
				}
			}
			decode(t, data, &got)
			ctx := context.Background()
			pinned := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 1}}}
			c, err := solver.CountFiltered(ctx, 10, pinned, solver.CountOptions{})
			if err != nil || got.Count.Total != fmt.Sprint(c.Total) || got.Count.Unique != fmt.Sprint(c.Unique) || len(got.Count.SquareCounts) != 10 ||
				got.Count.SquareCounts[0][1] != fmt.Sprint(c.Total) {
				t.Fatalf("count: %+v, the solver's %+v (%v)", got.Count, c, err)
			}
			empty := solver.Filter{Empty: []solver.Square{{Row: 3, Col: 3}}}
			total, err := solver.CountFiltered(ctx, 11, empty, solver.CountOptions{})
			page, perr := solver.Page(ctx, solver.PageQuery{N: 11, Limit: 200, Filter: empty})
			if err != nil || perr != nil || got.Solutions.TotalCount != fmt.Sprint(total.Total) || len(got.Solutions.Nodes) != len(page) {
				t.Fatalf("filtered page: total %s, %d nodes; the solver's %d, %d (%v, %v)", got.Solutions.TotalCount, len(got.Solutions.Nodes), total.Total, len(page), err, perr)
			}
			for i, p := range page {
				if n := got.Solutions.Nodes[i]; n.Placement.Compare(p) != 0 || n.Svg != boardsvg.Render(p, 400) {
					t.Fatalf("filtered solution %d: %v, the solver's %v", i, n.Placement, p)
				}
			}
		}},
	}
}

func decode(t *testing.T, data json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %.200s: %v", data, err)
	}
}

// reference answers each heavy request once, before any attack, checks
// it against the solver and returns the hash of its answer: every answer
// the attack accepts must be the same.
func reference(t *testing.T, b *apitest.Bundle, reqs []heavyRequest) map[string][32]byte {
	t.Helper()
	c := from(t, b, "127.0.0.19")
	defer c.HTTP.CloseIdleConnections()
	sums := map[string][32]byte{}
	for _, req := range reqs {
		r := c.Post(t, apitest.Request{Query: req.query})
		if r.Status != http.StatusOK || len(r.Errors) > 0 {
			t.Fatalf("%s alone: status %d: %.300s", req.name, r.Status, r.Raw)
		}
		req.check(t, r.Data)
		sums[req.name] = sha256.Sum256(r.Raw)
	}
	return sums
}

// outcomes counts what a flood's requests got.
type outcomes struct {
	mu                     sync.Mutex
	accepted, tooMany, off int // 200 and right; 429; 503
	timedOut               int // 200 with a TIMEOUT error: the server was too busy to finish it
	reasons                map[string]int
	wrong                  []string
}

func (o *outcomes) fail(format string, a ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.wrong) < 10 {
		o.wrong = append(o.wrong, fmt.Sprintf(format, a...))
	}
}

// ask sends one request and counts its outcome: an answer of 200 must be
// the reference (its hash, so that 50 clients do not hold 50 answers), a
// refusal must be 429 or 503 with Retry-After and say which bound.
func (o *outcomes) ask(c *http.Client, url string, req heavyRequest, want [32]byte) {
	body, _ := json.Marshal(apitest.Request{Query: req.query})
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		o.fail("%s: %v", req.name, err)
		return
	}
	defer resp.Body.Close()
	var head bytes.Buffer // the start of the answer, where errors come
	h := sha256.New()
	if _, err := io.Copy(h, io.TeeReader(resp.Body, &limitedWriter{&head, 4 << 10})); err != nil {
		o.fail("%s: reading the answer: %v", req.name, err)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var refusal struct {
		Errors []apitest.Error `json:"errors"`
	}
	switch resp.StatusCode {
	case http.StatusOK:
		if [32]byte(h.Sum(nil)) == want {
			o.accepted++
			return
		}
		if bytes.HasPrefix(head.Bytes(), []byte(`{"errors":[{`)) && bytes.Contains(head.Bytes(), []byte(`"code":"TIMEOUT"`)) {
			o.timedOut++
			return
		}
		o.wrong = append(o.wrong, fmt.Sprintf("%s: a different answer: %.300s", req.name, head.Bytes()))
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		_ = json.Unmarshal(head.Bytes(), &refusal)
		reason := ""
		if len(refusal.Errors) > 0 {
			reason, _ = refusal.Errors[0].Extensions["reason"].(string)
		}
		if resp.Header.Get("Retry-After") == "" || !strings.HasPrefix(reason, "MEMORY_") && !strings.HasPrefix(reason, "ANSWERS_") {
			o.wrong = append(o.wrong, fmt.Sprintf("%s: %d without Retry-After or a memory reason: %.300s", req.name, resp.StatusCode, head.Bytes()))
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			o.tooMany++
		} else {
			o.off++
		}
		if o.reasons == nil {
			o.reasons = map[string]int{}
		}
		o.reasons[reason]++
	default:
		o.wrong = append(o.wrong, fmt.Sprintf("%s: status %d: %.300s", req.name, resp.StatusCode, head.Bytes()))
	}
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	b *bytes.Buffer
	n int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// honestDuring has the honest client (another address) ask for a page,
// an export and a subscription every second until done is closed.
func honestDuring(t *testing.T, b *apitest.Bundle, done <-chan struct{}) {
	t.Helper()
	var slowest time.Duration
	for i := 0; ; i++ {
		select {
		case <-done:
			t.Logf("the honest client at 127.0.0.9 was answered in at most %s (%d rounds of a page, an export and a subscription)", slowest, i)
			return
		case <-time.After(time.Second):
		}
		slowest = max(slowest, honestOnce(t, b))
	}
}

// TestAbuseHeavyAnswers: 50 clients (127.0.0.20 to .69) ask for heavy
// answers, two at a time each, each as soon as the last is answered, for
// 10 s: the requests
// in flight hold what their answers take, so the server sheds some (429,
// 503 with Retry-After) and answers the others right; the process stays
// within the memory budget, another client is answered within 1 s
// throughout, and the process is back at its baseline after.
func TestAbuseHeavyAnswers(t *testing.T) {
	b := apitest.Setup(t, quietLogs(t))
	withDefaultBudget(t)
	reqs := heavyRequests(b)
	want := reference(t, b, reqs)
	before := takeBaseline(t)
	stop := watchRSS(t)

	// Each client asks two things at once, as a browser's page does.
	const clients, perClient = 50, 2
	var o outcomes
	var wg sync.WaitGroup
	deadline := time.Now().Add(10 * time.Second)
	var sent atomic.Int64
	var flooders []*apitest.Bundle
	for i := range clients {
		c := from(t, b, fmt.Sprintf("127.0.0.%d", 20+i))
		flooders = append(flooders, c)
		for j := range perClient {
			wg.Go(func() {
				for k := i + j; time.Now().Before(deadline); k++ {
					req := reqs[k%len(reqs)]
					sent.Add(1)
					o.ask(c.HTTP, b.URL, req, want[req.name])
				}
			})
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	honestDuring(t, b, done)
	withinBudget(t, stop())
	for _, c := range flooders {
		c.HTTP.CloseIdleConnections()
	}

	t.Logf("%d requests: %d answered right, %d refused 429, %d refused 503 (%v), %d timed out", sent.Load(), o.accepted, o.tooMany, o.off, o.reasons, o.timedOut)
	for _, w := range o.wrong {
		t.Error(w)
	}
	if o.tooMany+o.off == 0 {
		t.Error("nothing was refused: the requests in flight did not fill the budget")
	}
	if o.accepted == 0 {
		t.Error("nothing was answered")
	}
	answersNext(t, b)
	b.HTTP.CloseIdleConnections() // back at the baseline's descriptors
	before.restored(t, 32<<20)
}

// underAttack takes the baseline, runs attack (which returns when the
// attack is over) while the honest client asks every second and the
// resident memory is watched, then checks both, that the server still
// answers, and that the process is back at its baseline.
func underAttack(t *testing.T, b *apitest.Bundle, attack func()) {
	t.Helper()
	before := takeBaseline(t)
	stop := watchRSS(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		attack()
	}()
	honestDuring(t, b, done)
	withinBudget(t, stop())
	answersNext(t, b)
	b.HTTP.CloseIdleConnections()
	before.restored(t, 16<<20)
}

// slowBody is a request body that comes in pieces of 64 KiB every 150
// ms: a client on a slow line.
type slowBody struct {
	r    io.Reader
	sent int
}

func (s *slowBody) Read(p []byte) (int, error) {
	if s.sent > 0 {
		time.Sleep(150 * time.Millisecond)
	}
	n, err := s.r.Read(p[:min(len(p), 64<<10)])
	s.sent += n
	return n, err
}

// TestAbuseLargeBodies: one address (127.0.0.30) sends request bodies of
// 1 MiB, 40 at a time as fast as it can and 20 at a time slowly (3 s
// each), for 8 s: it holds no more than its share of the requests'
// memory, past which it is refused 429 with Retry-After, never 503 (the
// others are not crowded out); the honest client is answered in time.
func TestAbuseLargeBodies(t *testing.T) {
	b := apitest.Setup(t, quietLogs(t))
	withDefaultBudget(t)
	const attacker = "127.0.0.30"
	share := server.DefaultConfig().InflightBytesPerClient
	pad := strings.Repeat("x", 1<<20-100)
	body, _ := json.Marshal(apitest.Request{Query: "{ count(n: 8) { total } } #" + pad})
	pool := poolNamed(t, b, apierror.PoolMemory)
	var most atomic.Int64
	counts := map[int]int{}
	var mu sync.Mutex
	var wrong []string
	// A refusal answered before its body is read closes its connection,
	// and the attacker opens another at once: the server may still count
	// the closed ones, so that past its 64 connections the attacker is
	// refused its share of connections too (429 CONNECTIONS_PER_CLIENT,
	// the raw answer cutting its body short: a broken connection).
	broken := 0
	c := fromWithin(t, b, attacker, 48)
	send := func(r io.Reader) {
		req, _ := http.NewRequest(http.MethodPost, b.URL, r)
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.HTTP.Do(req)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			broken++
			return
		}
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		counts[resp.StatusCode]++
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			if resp.Header.Get("Retry-After") == "" || !bytes.Contains(head, []byte(`"MEMORY_PER_CLIENT"`)) && !bytes.Contains(head, []byte(`"CONNECTIONS_PER_CLIENT"`)) {
				wrong = append(wrong, fmt.Sprintf("429 without Retry-After or a share of the client: %s", head))
			}
		default:
			wrong = append(wrong, fmt.Sprintf("status %d: %.300s", resp.StatusCode, head))
		}
	}
	underAttack(t, b, func() {
		deadline := time.Now().Add(8 * time.Second)
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if i < 20 {
						send(&slowBody{r: bytes.NewReader(body)})
					} else {
						send(bytes.NewReader(body))
					}
				}
			})
		}
		wg.Go(func() {
			for time.Now().Before(deadline) {
				most.Store(max(most.Load(), pool.HeldBy(attacker)))
				time.Sleep(5 * time.Millisecond)
			}
		})
		wg.Wait()
		c.HTTP.CloseIdleConnections()
	})
	t.Logf("answers to the attacker by status: %v, %d connections broken by a refusal; it held at most %.1f MiB of its share of %.1f MiB",
		counts, broken, mib(uint64(most.Load())), mib(uint64(share)))
	for _, w := range wrong[:min(len(wrong), 10)] {
		t.Error(w)
	}
	if counts[http.StatusTooManyRequests] == 0 {
		t.Error("the attacker was never refused")
	}
	if most.Load() > share {
		t.Errorf("the attacker held %d bytes, past its share of %d", most.Load(), share)
	}
}

// introspectionAliases is a document of k aliases of the schema's types,
// fields and arguments with their descriptions: about 100 bytes of
// document for 40 kB of answer each.
func introspectionAliases(k int) string {
	return aliases(k, "__schema { types { name description fields { name description args { name description } } } }")
}

// TestAbuseIntrospectionAliases: a document of 190 aliases of
// introspection (19 kB, within every limit of documents, and of no
// complexity) would answer 7 MB: it is refused by its price, 400
// MEMORY_PER_REQUEST, before it is computed, 10 at a time for 5 s; five
// aliases are answered.
func TestAbuseIntrospectionAliases(t *testing.T) {
	b := apitest.Setup(t, quietLogs(t))
	withDefaultBudget(t)
	doc := introspectionAliases(190)
	if r := b.Post(t, apitest.Request{Query: introspectionAliases(5)}); r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("five aliases: %d %.300s", r.Status, r.Raw)
	}
	var refused, other atomic.Int64
	var slowest atomic.Int64
	underAttack(t, b, func() {
		deadline := time.Now().Add(5 * time.Second)
		var wg sync.WaitGroup
		for i := range 10 {
			c := from(t, b, fmt.Sprintf("127.0.0.%d", 40+i))
			wg.Go(func() {
				defer c.HTTP.CloseIdleConnections()
				for time.Now().Before(deadline) {
					start := time.Now()
					r := c.Post(t, apitest.Request{Query: doc})
					slowest.Store(max(slowest.Load(), int64(time.Since(start))))
					if r.Status == http.StatusBadRequest && r.Reason() == "MEMORY_PER_REQUEST" {
						refused.Add(1)
					} else {
						other.Add(1)
					}
				}
			})
		}
		wg.Wait()
	})
	t.Logf("%d documents of %d bytes refused by their price (the slowest refusal took %s), %d otherwise answered", refused.Load(), len(doc), time.Duration(slowest.Load()), other.Load())
	if refused.Load() == 0 || other.Load() > 0 {
		t.Errorf("%d refused, %d otherwise answered: want every one refused", refused.Load(), other.Load())
	}
}

// TestAbuseLargerThanShare: a request that alone would hold more than a
// client's share (a page of 1000 pictures of N=16: about 28 MiB) is
// refused at once, 400 MEMORY_PER_REQUEST, even while its client's share
// is held by its other requests (a refusal that waited for room would
// take the admission wait, 2 s); sent 10 at a time for 5 s.
func TestAbuseLargerThanShare(t *testing.T) {
	b := apitest.Setup(t, quietLogs(t))
	withDefaultBudget(t)
	const attacker = "127.0.0.31"
	wait := server.DefaultConfig().AdmissionWait
	// The attacker's share is held by requests whose bodies stall.
	for range 15 {
		stallBody(t, b, attacker, 1<<20)
	}
	c := fromWithin(t, b, attacker, 40) // and its stalled bodies: within its 64 connections
	heavy, _ := json.Marshal(apitest.Request{Query: "{ solutions(n: 16, first: 1000) { nodes { svg rows matrix } } }"})
	// A connection the server closes as idle while the attacker sends on
	// it is broken, not answered: counted apart.
	var refused, other, broken atomic.Int64
	var slowest atomic.Int64
	underAttack(t, b, func() {
		deadline := time.Now().Add(5 * time.Second)
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					start := time.Now()
					resp, err := c.HTTP.Post(b.URL, "application/json", bytes.NewReader(heavy))
					if err != nil {
						broken.Add(1)
						continue
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					slowest.Store(max(slowest.Load(), int64(time.Since(start))))
					if resp.StatusCode == http.StatusBadRequest && bytes.Contains(body, []byte(`"reason":"MEMORY_PER_REQUEST"`)) && resp.Header.Get("Retry-After") == "" {
						refused.Add(1)
					} else {
						if other.Load() == 0 {
							t.Logf("status %d %s", resp.StatusCode, body)
						}
						other.Add(1)
					}
				}
			})
		}
		wg.Wait()
		c.HTTP.CloseIdleConnections()
	})
	t.Logf("%d requests larger than a share refused at once (the slowest in %s; the admission wait is %s), %d otherwise answered, %d connections broken",
		refused.Load(), time.Duration(slowest.Load()), wait, other.Load(), broken.Load())
	if refused.Load() == 0 || other.Load() > 0 {
		t.Errorf("%d refused, %d otherwise answered: want every one refused", refused.Load(), other.Load())
	}
	if time.Duration(slowest.Load()) >= wait {
		t.Errorf("the slowest refusal took %s: it waited for room (the admission wait is %s)", time.Duration(slowest.Load()), wait)
	}
}
