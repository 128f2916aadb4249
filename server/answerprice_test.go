package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/introspection"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// priceOf prices a request as the server does before running it.
func priceOf(t *testing.T, b *apitest.Bundle, req apitest.Request) server.AnswerPrice {
	t.Helper()
	es := graph.NewSchema(b.Server.Resolver())
	doc, errs := gqlparser.LoadQueryWithRules(es.Schema(), req.Query, nil) // the default rules
	if errs != nil {
		t.Fatalf("%s: %v", req.Query, errs)
	}
	op := doc.Operations[0]
	vars, err := validator.VariableValues(es.Schema(), op, req.Variables)
	if err != nil {
		t.Fatal(err)
	}
	return b.Server.PriceOperation(op, vars)
}

// answerOf posts req with a server whose every share is large enough
// for it, and returns the answer's bytes, what the process allocated
// meanwhile, and the most the live heap grew by (the least of three tries
// of each). The collector runs at every 2% of growth meanwhile, so that
// the live heap is measured often while the request is answered.
func answerOf(t *testing.T, b *apitest.Bundle, req apitest.Request, get bool) (body []byte, allocated, peak uint64) {
	t.Helper()
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(2))
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var buf bytes.Buffer
	for try := range 3 {
		buf.Reset()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		metrics.Read(live)
		base, most := live[0].Value.Uint64(), uint64(0)
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			for {
				metrics.Read(sample)
				most = max(most, sample[0].Value.Uint64())
				select {
				case <-done:
					return
				default:
					time.Sleep(50 * time.Microsecond)
				}
			}
		})
		var resp *http.Response
		if get {
			resp, err = b.HTTP.Get(b.URL + "?query=" + url.QueryEscape(req.Query))
		} else {
			resp, err = b.HTTP.Post(b.URL, "application/json", bytes.NewReader(raw))
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(&buf, resp.Body)
		resp.Body.Close()
		close(done)
		wg.Wait()
		runtime.ReadMemStats(&after)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, %v: %.300s", resp.StatusCode, err, buf.Bytes())
		}
		a := after.TotalAlloc - before.TotalAlloc - uint64(buf.Cap())
		p := uint64(0)
		if most > base {
			p = most - base
		}
		if try == 0 || a < allocated {
			allocated = a
		}
		if try == 0 || p < peak {
			peak = p
		}
	}
	if bytes.Contains(buf.Bytes(), []byte(`"errors"`)) {
		t.Fatalf("the answer has errors: %.500s", buf.Bytes())
	}
	return buf.Bytes(), allocated, peak
}

// calibrationShapes are honest-but-heavy requests of every kind the
// estimate prices: introspection, pages of large solutions with their
// forms, completions of large boards, statistics, filtered counts.
var calibrationShapes = []struct {
	name string
	req  apitest.Request
	get  bool // sent with GET, whose answer the server keeps whole for its ETag
	// over, when set, says why the estimate may be more than 4 times the
	// answer.
	over string
}{
	{name: "a small query", req: apitest.Request{Query: "{ count(n: 6) { total unique } }"}, over: "room for an error or two in every answer"},
	{name: "introspection", req: apitest.Request{Query: introspection.Query}},
	{name: "20 aliases of types and fields", req: apitest.Request{Query: aliases(20, "__schema { types { name kind description fields { name description type { name kind ofType { name kind } } } } }")}},
	{name: "a page of 1000 of N=16 with its forms", req: apitest.Request{Query: `{ solutions(n: 16, first: 1000) { edges { cursor node { placement rows matrix svg } } } }`}},
	{name: "the same by GET", get: true, req: apitest.Request{Query: `{ solutions(n: 16, first: 1000) { edges { cursor node { placement rows matrix svg } } } }`}},
	{name: "a page of 300 of N=16 with every field", req: apitest.Request{Query: `{ solutions(n: 16, first: 300) { totalCount pageInfo { endCursor hasNextPage }
		nodes { id n placement compact rows matrix chess svg(size: 64) rank uniqueRank isCanonical orbitSize canonical { placement } symmetries { symmetry name isSame placement } } } }`},
		over: "rank and uniqueRank are null (N=16 is past the solver's walk without a store) where the estimate counts their digits"},
	{name: "a page of 1000 of N=8 with pictures", req: apitest.Request{Query: `{ solutions(n: 8, first: 1000) { nodes { placement svg } } }`}},
	{name: "complete N=10,000", req: apitest.Request{Query: completes(1)}},
	{name: "complete N=10,000 ×4", req: apitest.Request{Query: completes(4)}},
	{name: "counts with squareCounts N=4..12", req: apitest.Request{Query: aliasesN(4, 12, "count(n: %d) { n total unique squareCounts uniqueSquareCounts }")}},
	{name: "filtered counts", req: apitest.Request{Query: `{ a: count(n: 12, where: {queens: [{row: 0, col: 1}]}) { total unique squareCounts }
		b: count(n: 11, where: {empty: [{row: 5, col: 5}]}) { total unique } c: solutions(n: 12, first: 100, where: {queens: [{row: 2, col: 3}]}) { totalCount nodes { placement } } }`}},
	{name: "boards", req: apitest.Request{Query: `{ boards { n id state total unique squareCounts progress { fraction } } }`},
		over: "no board is stored on this server: its counts and squareCounts are null where the estimate counts them"},
}

func aliases(k int, field string) string {
	var q strings.Builder
	q.WriteString("{")
	for i := range k {
		fmt.Fprintf(&q, " a%d: %s", i, field)
	}
	q.WriteString(" }")
	return q.String()
}

func aliasesN(from, to int, field string) string {
	var q strings.Builder
	q.WriteString("{")
	for n := from; n <= to; n++ {
		fmt.Fprintf(&q, " a%d: "+field, n, n)
	}
	q.WriteString(" }")
	return q.String()
}

// completes is k completions of different boards of 10,000 rows.
func completes(k int) string {
	var q strings.Builder
	q.WriteString("{")
	for i := range k {
		fmt.Fprintf(&q, " c%d: complete(n: 10000, queens: [{row: %d, col: %d}]) { state placement reason }", i, i, 2*i+1)
	}
	q.WriteString(" }")
	return q.String()
}

// TestAnswerEstimateCalibration prices each calibration shape as the
// server does and answers it: the estimate of the answer is at least its
// real size and at most 4 times it (or the shape says why not), and what
// the request is made to hold (Price.Held) covers what answering it
// allocated. Not parallel: it reads the process's allocations.
func TestAnswerEstimateCalibration(t *testing.T) {
	b := apitest.Setup(t, func(c *server.Config) { c.InflightBytesPerClient = c.InflightBytes })
	t.Logf("%-40s %10s %10s %5s %10s %10s %10s %5s %7s %8s", "shape", "estimate", "answer", "ratio", "held", "peak live", "allocated", "ratio", "values", "work")
	for _, s := range calibrationShapes {
		p := priceOf(t, b, s.req)
		body, allocated, peak := answerOf(t, b, s.req, s.get)
		ratio := float64(p.AnswerBytes) / float64(len(body))
		raw, _ := json.Marshal(s.req)
		held := server.RequestOverhead + int64(len(raw)) + server.DocumentCost(s.req.Query) + p.Held()
		t.Logf("%-40s %10d %10d %5.2f %10d %10d %10d %5.2f %7d %8d", s.name, p.AnswerBytes, len(body), ratio, held, peak, allocated,
			float64(held)/float64(peak), p.Values, p.WorkBytes)
		if p.AnswerBytes < int64(len(body)) {
			t.Errorf("%s: estimated %d bytes, the answer has %d", s.name, p.AnswerBytes, len(body))
		}
		if ratio > 4 && s.over == "" {
			t.Errorf("%s: estimated %d bytes, %.1f times the answer's %d", s.name, p.AnswerBytes, ratio, len(body))
		}
		// The race detector's build allocates more than the one priced.
		if held < int64(peak) && !raceDetector {
			t.Errorf("%s: holds %d bytes while answering it grew the live heap by %d", s.name, held, peak)
		}
	}
}
