package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
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

func (m *memorySource) Board(_ context.Context, n int) (graph.BoardStatus, error) {
	if n != m.n {
		return graph.BoardStatus{N: n, State: graph.BoardStateUnknown}, nil
	}
	c := m.counts
	return graph.BoardStatus{N: n, State: graph.BoardStateDone, StoresSolutions: true, Counts: &c}, nil
}

func (m *memorySource) Boards(ctx context.Context) ([]graph.BoardStatus, error) {
	st, _ := m.Board(ctx, m.n)
	return []graph.BoardStatus{st}, nil
}

func (m *memorySource) Page(_ context.Context, req graph.PageRequest) ([]solver.Placement, error) {
	i := 0
	if req.After != nil {
		for i < len(m.all) && m.all[i].Compare(req.After) <= 0 {
			i++
		}
	}
	return m.all[i:min(i+req.Limit, len(m.all))], nil
}

func (m *memorySource) At(_ context.Context, _ int, _ graph.Kind, i uint64) (solver.Placement, error) {
	return m.all[i], nil
}

func (m *memorySource) Index(_ context.Context, _ int, _ graph.Kind, p solver.Placement) (uint64, error) {
	for i, q := range m.all {
		if q.Compare(p) == 0 {
			return uint64(i), nil
		}
	}
	return 0, graph.ErrNotFound
}

// BenchmarkPageOverhead is the API's own cost of the load test's request
// (docs/PERFORMANCE.md, "GraphQL API"): solutions(n: 12, first: 20,
// after: …) with cursor and placement, through the real handler and a
// real HTTP client on a loopback port, the page coming from memory (no
// database, no page cache).
func BenchmarkPageOverhead(b *testing.B) {
	src := newMemorySource(12)
	srv := apitest.Setup(b, server.Config{
		Graph:  graph.Options{Boards: src, Stored: src},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	const query = `query Page($n: Int!, $first: Int!, $after: String) {
  solutions(n: $n, first: $first, after: $after) {
    totalCount
    edges { cursor node { placement } }
    pageInfo { hasNextPage endCursor }
  }
}`
	body, err := json.Marshal(map[string]any{"query": query, "operationName": "Page",
		"variables": map[string]any{"n": 12, "first": 20, "after": graph.EncodeCursor(graph.KindAll, src.all[5000])}})
	if err != nil {
		b.Fatal(err)
	}
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
