package graph_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
)

// TestDefaultOptionsAreTaken: NewResolver takes DefaultOptions as they
// are, and keeps them as given.
func TestDefaultOptionsAreTaken(t *testing.T) {
	t.Parallel()
	def := graph.DefaultOptions()
	r, err := graph.NewResolver(def)
	if err != nil {
		t.Fatalf("NewResolver(DefaultOptions()): %v", err)
	}
	got := r.Options()
	if got.MaxPageSize != def.MaxPageSize || got.CountMaxN != def.CountMaxN || got.PageCacheBytes != def.PageCacheBytes {
		t.Errorf("Options() = %+v, want DefaultOptions() %+v", got, def)
	}
}

// TestOptionsRefused: a value NewResolver cannot work with is refused,
// with an error that names the field and says what is allowed; it is
// never replaced by a default.
func TestOptionsRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		change func(*graph.Options)
		field  string
		says   string
	}{
		{func(o *graph.Options) { o.MaxPageSize = 0 }, "MaxPageSize", "must be at least 1, got 0"},
		{func(o *graph.Options) { o.MaxPageSize = store.MaxPageLimit }, "MaxPageSize", "must be below 10000 (a page asks the store for one more), got 10000"},
		{func(o *graph.Options) { o.DefaultPageSize = 0 }, "DefaultPageSize", "must be from 1 to 1000 (at most MaxPageSize), got 0"},
		{func(o *graph.Options) { o.MaxPageSize = 10 }, "DefaultPageSize", "must be from 1 to 10 (at most MaxPageSize), got 20"},
		{func(o *graph.Options) { o.CountMaxN = -1 }, "CountMaxN", "must be from 0 to 32 (0: never count on the spot), got -1"},
		{func(o *graph.Options) { o.RankWalkMaxN = 33 }, "RankWalkMaxN", "must be from 0 to 32"},
		{func(o *graph.Options) { o.SolverSlots = 0 }, "SolverSlots", "must be at least 1, got 0"},
		{func(o *graph.Options) { o.SolverBudget = 0 }, "SolverBudget", "must be positive, got 0s"},
		{func(o *graph.Options) { o.PageCacheBytes = -1 }, "PageCacheBytes", "must be at least 0, got -1"},
		{func(o *graph.Options) { o.PollInterval = 0 }, "PollInterval", "must be positive, got 0s"},
		{func(o *graph.Options) { o.SweepInterval = 0 }, "SweepInterval", "must be positive, got 0s"},
		{func(o *graph.Options) { o.CountTimeout = 0 }, "CountTimeout", "must be positive, got 0s"},
		{func(o *graph.Options) { o.Logger = nil }, "Logger", "is nil; give a logger"},
	} {
		o := graph.DefaultOptions()
		tt.change(&o)
		_, err := graph.NewResolver(o)
		var e *configcheck.Error
		if !errors.As(err, &e) || e.Field != tt.field || !strings.Contains(err.Error(), "graph: "+tt.field+" "+tt.says) {
			t.Errorf("NewResolver with a bad %s: %v; want an error naming it and saying %q", tt.field, err, tt.says)
		}
	}
}

// TestZeroOptionsMeanZero: a zero that NewResolver takes means zero, not
// a default. With PageCacheBytes 0 nothing is looked up in the page
// cache, with CountMaxN 0 nothing is counted on the spot, with
// RankWalkMaxN 0 no rank is found by walking; the defaults do all three.
func TestZeroOptionsMeanZero(t *testing.T) {
	t.Parallel()
	const query = `{ count(n: 6) { total } solutions(n: 6, first: 1) { nodes { placement } } }`
	const rank = `{ solutionAt(n: 6, rank: 2) { placement } }`
	for _, tt := range []struct {
		name  string
		zero  bool
		total any // count(n: 6)'s total
	}{
		{"defaults", false, "4"},
		{"zeros", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			lookups := 0
			b := apitest.Setup(t, func(c *server.Config) {
				c.Graph.OnCacheLookup = func(string, bool) { mu.Lock(); lookups++; mu.Unlock() }
				if tt.zero {
					c.Graph.PageCacheBytes, c.Graph.CountMaxN, c.Graph.RankWalkMaxN = 0, 0, 0
				}
			})
			var data struct {
				Count struct{ Total any }
			}
			for range 2 {
				b.Query(t, query, nil, &data)
			}
			if data.Count.Total != tt.total {
				t.Errorf("count(n: 6) { total } = %v, want %v", data.Count.Total, tt.total)
			}
			mu.Lock()
			if looked := lookups > 0; looked == tt.zero {
				t.Errorf("%d page cache lookups for the same page twice; want some with the cache on, none with it off", lookups)
			}
			mu.Unlock()
			r := b.Post(t, apitest.Request{Query: rank})
			if walked := len(r.Errors) == 0; walked == tt.zero {
				t.Errorf("solutionAt(n: 6) with RankWalkMaxN zero %t: %s", tt.zero, r.Raw)
			}
			if tt.zero && !strings.Contains(r.Message(), "only for N up to 0") {
				t.Errorf("solutionAt(n: 6) without walking: %q, want it to say ranks are walked only for N up to 0", r.Message())
			}
		})
	}
}
