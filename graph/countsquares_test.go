package graph_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// squareTally tallies the placements of a listing square by square, as
// N rows of N decimal counts (BigInt's JSON).
func squareTally(n int, listing []solver.Placement) [][]string {
	counts := make([]uint64, n*n)
	for _, p := range listing {
		for r, c := range p {
			counts[r*n+c]++
		}
	}
	out := make([][]string, n)
	for r := range out {
		for c := range n {
			out[r] = append(out[r], fmt.Sprint(counts[r*n+c]))
		}
	}
	return out
}

// TestCountSquareCounts: count(n, where)'s statistics equal the tally of
// the brute-force filtered listings (all, and unique by canonical
// member), with and without a filter (no store: the solver's tally).
func TestCountSquareCounts(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 15))
	for n := 6; n <= 9; n++ {
		all := collectAll(n)
		filters := []solver.Filter{{}}
		for range 3 {
			filters = append(filters, randomWhere(r, n, all))
		}
		for _, f := range filters {
			var data struct {
				Count struct {
					SquareCounts, UniqueSquareCounts [][]string
				}
			}
			b.Query(t, `query($n: Int!, $where: SolutionFilter) { count(n: $n, where: $where) { squareCounts uniqueSquareCounts } }`,
				map[string]any{"n": n, "where": whereOf(f)}, &data)
			c := data.Count
			wantAll, wantUnique := squareTally(n, matchingListing(n, f, false)), squareTally(n, matchingListing(n, f, true))
			if !slices.EqualFunc(c.SquareCounts, wantAll, slices.Equal) {
				t.Errorf("N=%d where %q: squareCounts %v, want %v", n, f, c.SquareCounts, wantAll)
			}
			if !slices.EqualFunc(c.UniqueSquareCounts, wantUnique, slices.Equal) {
				t.Errorf("N=%d where %q: uniqueSquareCounts %v, want %v", n, f, c.UniqueSquareCounts, wantUnique)
			}
		}
	}
	// Without a filter, a board too large to count on the spot has none,
	// and no error: its state says what to do.
	r2 := b.Post(t, apitest.Request{Query: `{ count(n: 20) { squareCounts uniqueSquareCounts state } }`})
	if len(r2.Errors) != 0 || string(r2.Data) != `{"count":{"squareCounts":null,"uniqueSquareCounts":null,"state":"UNKNOWN"}}` {
		t.Errorf("N=20 without a filter: %s, want null statistics and no error", r2.Raw)
	}
}

// TestCountSquareCountsOverBudget: a tally that does not fit the
// request's solver time answers null with TIMEOUT on each field, and the
// rest of the answer stands. The count itself (count's own search, run
// before its fields) spends the budget first and says so on count.
func TestCountSquareCountsOverBudget(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.Graph.SolverBudget = time.Second })
	// One blocked square leaves nearly all of N=24's 2.3×10^14 solutions.
	vars := map[string]any{"where": map[string]any{"empty": []square{{23, 23}}}}
	r := b.Post(t, apitest.Request{Query: `query($where: SolutionFilter) { count(n: 24, where: $where) { squareCounts uniqueSquareCounts state } }`, Variables: vars})
	var data struct {
		Count struct {
			SquareCounts, UniqueSquareCounts [][]string
			State                            string
		}
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		t.Fatal(err)
	}
	if c := data.Count; c.SquareCounts != nil || c.UniqueSquareCounts != nil || c.State != "UNKNOWN" {
		t.Errorf("over budget: %+v, want null statistics and the state", c)
	}
	var paths []string
	for _, e := range r.Errors {
		if e.Extensions["code"] != "TIMEOUT" {
			t.Errorf("error %q: code %v, want TIMEOUT", e.Message, e.Extensions["code"])
		}
		paths = append(paths, fmt.Sprint(e.Path))
	}
	slices.Sort(paths)
	if want := []string{"[count squareCounts]", "[count uniqueSquareCounts]", "[count]"}; !slices.Equal(paths, want) {
		t.Errorf("over budget: errors at %v, want %v (%s)", paths, want, r.Raw)
	}
}
