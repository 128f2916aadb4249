package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// memorySource is a stored board held in memory: the API's own cost per
// request, without a database.
type memorySource struct {
	n      int
	all    []solver.Placement
	counts solver.Counts
}

func newMemorySource(n int) *memorySource {
	m := &memorySource{n: n}
	for p := range solver.All(n) {
		m.all = append(m.all, p.Clone())
		m.counts.Total++
	}
	return m
}

func (m *memorySource) Board(_ context.Context, n int) (store.Board, error) {
	if n != m.n {
		return store.Board{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d is not in memory", n)
	}
	c := m.counts
	return store.Board{N: n, State: store.Done, StoresSolutions: true, Counts: &c}, nil
}

func (m *memorySource) Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error) {
	b, _ := m.Board(ctx, m.n)
	if len(states) > 0 && !slices.Contains(states, b.State) {
		return nil, nil
	}
	return []store.Board{b}, nil
}

// SquareCounts has no statistics: the benchmark does not ask for them.
func (m *memorySource) SquareCounts(_ context.Context, n int) (solver.SquareCounts, error) {
	return solver.SquareCounts{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has no square counts in memory", n)
}

func (m *memorySource) FilteredCount(_ context.Context, n int, filter solver.Filter) (store.FilteredCount, error) {
	return store.FilteredCount{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has no count under %q in memory", n, filter)
}

func (m *memorySource) FilteredCountChunks(_ context.Context, n int, filter solver.Filter) ([]solver.Counts, error) {
	return nil, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has no count under %q in memory", n, filter)
}

// Page pages forward (the benchmark's only direction), as the store does.
func (m *memorySource) Page(_ context.Context, req store.PageRequest) ([]store.Solution, error) {
	i := 0
	if req.Cursor != nil {
		for i < len(m.all) && m.all[i].Compare(req.Cursor) <= 0 {
			i++
		}
	}
	page := make([]store.Solution, 0, req.Limit)
	for _, p := range m.all[i:min(i+req.Limit, len(m.all))] {
		page = append(page, store.Solution{N: m.n, Placement: p})
	}
	return page, nil
}

func (m *memorySource) SolutionAt(_ context.Context, _ int, rank uint64, _ bool) (store.Solution, error) {
	return store.Solution{N: m.n, Placement: m.all[rank-1], Rank: rank}, nil
}

func (m *memorySource) Rank(_ context.Context, _ int, p solver.Placement, _ bool) (uint64, error) {
	for i, q := range m.all {
		if q.Compare(p) == 0 {
			return uint64(i) + 1, nil
		}
	}
	return 0, nqueens.Errorf(nqueens.ENOTFOUND, "not a solution of N=%d", m.n)
}

// BenchmarkPageOverhead is the API's own cost of the load test's request
// (docs/PERFORMANCE.md, "GraphQL API"): solutions(n: 12, first: 20,
// after: …) with cursor and placement, through the real handler and a
// real HTTP client on a loopback port, the page coming from memory (no
// database, no page cache).
func BenchmarkPageOverhead(b *testing.B) { benchPage(b, nil) }

// BenchmarkPageTracing is BenchmarkPageOverhead without instrumentation
// (none), with tracing off as serve runs it without OTEL_* (off: the no-op
// provider), and on (the SDK, every span sampled, exported in batches to
// an exporter that drops them): off must cost nothing measurable over
// none (docs/PERFORMANCE.md, "Tracing").
func BenchmarkPageTracing(b *testing.B) {
	b.Run("tracing=none", func(b *testing.B) { benchPage(b, nil) })
	b.Run("tracing=off", func(b *testing.B) { benchPage(b, noop.NewTracerProvider()) })
	b.Run("tracing=on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		defer tp.Shutdown(context.Background())
		benchPage(b, tp)
	})
}

// BenchmarkPageTracingHandler is BenchmarkPageTracing without the network:
// the request goes to the server's handler in the benchmark's goroutine,
// and the answer cache is off, so that what remains is the handler's own
// CPU for a page, tracing's included.
func BenchmarkPageTracingHandler(b *testing.B) {
	b.Run("tracing=none", func(b *testing.B) { benchPageHandler(b, nil) })
	b.Run("tracing=off", func(b *testing.B) { benchPageHandler(b, noop.NewTracerProvider()) })
	b.Run("tracing=on", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
		defer tp.Shutdown(context.Background())
		benchPageHandler(b, tp)
	})
}

func benchPageHandler(b *testing.B, tp trace.TracerProvider) {
	src, body := pageRequest(b)
	srv := apitest.Setup(b, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = src, src
		c.Graph.PageCacheBytes = 0
		c.Logger = slog.New(slog.DiscardHandler)
		// Each request runs its operation, spans and all.
		c.AnswerCacheBytes = 0
		c.TracerProvider = tp
	}).Server
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK || bytes.Count(w.Body.Bytes(), []byte(`"cursor"`)) != 20 {
			b.Fatalf("%d, not a page of 20: %s", w.Code, w.Body.Bytes())
		}
	}
}

// pageRequest is the benchmarks' board in memory and the body of their
// request for a page of it.
func pageRequest(b *testing.B) (*memorySource, []byte) {
	src := newMemorySource(12)
	const query = `query Page($n: Int!, $first: Int!, $after: String) {
  solutions(n: $n, first: $first, after: $after) {
    totalCount
    edges { cursor node { placement } }
    pageInfo { hasNextPage endCursor }
  }
}`
	body, err := json.Marshal(map[string]any{"query": query, "operationName": "Page",
		"variables": map[string]any{"n": 12, "first": 20, "after": graph.EncodeCursor(false, src.all[5000])}})
	if err != nil {
		b.Fatal(err)
	}
	return src, body
}

// benchPage is BenchmarkPageOverhead with spans made by tp (nil: none).
func benchPage(b *testing.B, tp trace.TracerProvider) {
	src, body := pageRequest(b)
	srv := apitest.Setup(b, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = src, src
		c.Graph.PageCacheBytes = 0
		c.Logger = slog.New(slog.DiscardHandler)
		c.TracerProvider = tp
	})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := srv.HTTP.Post(srv.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || bytes.Contains(raw, []byte(`"errors"`)) || bytes.Count(raw, []byte(`"cursor"`)) != 20 {
				b.Fatalf("%d, not a page of 20: %s", resp.StatusCode, raw)
			}
		}
	})
}
