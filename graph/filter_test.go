package graph_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// These tests ask the real server (no store: every page from the solver)
// for filtered listings and counts, and compare them with the filtered
// enumeration.

// square is a SquareInput as the tests send it.
type square struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

// whereOf writes f as a SolutionFilter variable.
func whereOf(f solver.Filter) map[string]any {
	conv := func(ss []solver.Square) []square {
		out := []square{}
		for _, s := range ss {
			out = append(out, square{s.Row, s.Col})
		}
		return out
	}
	return map[string]any{"queens": conv(f.Queens), "empty": conv(f.Empty)}
}

// filteredPage asks for one page of field (solutions or uniqueSolutions,
// of Query or, with onBoard, of Board) of N under where.
func filteredPage(t *testing.T, b *apitest.Bundle, field string, onBoard bool, n int, where map[string]any, args map[string]any) apitest.Connection {
	t.Helper()
	vars := map[string]any{"n": n, "where": where}
	for k, v := range args {
		vars[k] = v
	}
	sel := fmt.Sprintf(`c: %s(n: $n, first: $first, after: $after, last: $last, before: $before, where: $where) { %s }`, field, apitest.ConnFields)
	if onBoard {
		sel = fmt.Sprintf(`board(n: $n) { c: %s(first: $first, after: $after, last: $last, before: $before, where: $where) { %s } }`, field, apitest.ConnFields)
	}
	q := `query($n: Int!, $first: Int, $after: String, $last: Int, $before: String, $where: SolutionFilter) { ` + sel + ` }`
	var data struct {
		C     apitest.Connection
		Board struct{ C apitest.Connection }
	}
	b.Query(t, q, vars, &data)
	if onBoard {
		return data.Board.C
	}
	return data.C
}

// matchingListing is the brute-force listing: the solutions f matches,
// or (unique) the canonical solutions with an image f matches.
func matchingListing(n int, f solver.Filter, unique bool) []solver.Placement {
	var out []solver.Placement
	for p := range solver.All(n) {
		if !unique && f.Matches(p) {
			out = append(out, p.Clone())
		}
		if unique && solver.IsCanonical(p) && slices.ContainsFunc(solver.Images(p), func(img solver.Image) bool { return f.Matches(img.Placement) }) {
			out = append(out, p.Clone())
		}
	}
	return out
}

// randomWhere pins up to 2 queens of a random solution and blocks up to 3
// random squares (within the 2N a list allowed), so that the filter
// usually matches something.
func randomWhere(r *rand.Rand, n int, all []solver.Placement) solver.Filter {
	var f solver.Filter
	p := all[r.IntN(len(all))]
	for range min(r.IntN(3), 2*n) {
		row := r.IntN(n)
		f.Queens = append(f.Queens, solver.Square{Row: row, Col: p[row]})
	}
	for range min(r.IntN(4), 2*n) {
		f.Empty = append(f.Empty, solver.Square{Row: r.IntN(n), Col: r.IntN(n)})
	}
	return f
}

func placements(c apitest.Connection) []solver.Placement {
	out := make([]solver.Placement, len(c.Edges))
	for i, e := range c.Edges {
		out[i] = e.Node.Placement
	}
	return out
}

func TestFilteredPagesEqualTheFilteredEnumeration(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 4))
	for _, n := range []int{1, 4, 5, 6, 8, 10} {
		all := collectAll(n)
		for _, unique := range []bool{false, true} {
			field := "solutions"
			if unique {
				field = "uniqueSolutions"
			}
			for range 3 {
				f := randomWhere(r, n, all)
				want := matchingListing(n, f, unique)
				where := whereOf(f)
				onBoard := r.IntN(2) == 0
				k := 1 + r.IntN(5)
				// Forward through the whole listing.
				var got []solver.Placement
				args := map[string]any{"first": k}
				for {
					c := filteredPage(t, b, field, onBoard, n, where, args)
					if c.Source != "SOLVER" || apitest.Uint64(t, c.TotalCount) != uint64(len(want)) {
						t.Fatalf("N=%d %s where %q: source %s, totalCount %v, want SOLVER and %d", n, field, f, c.Source, *c.TotalCount, len(want))
					}
					got = append(got, placements(c)...)
					if !c.PageInfo.HasNextPage {
						break
					}
					args = map[string]any{"first": k, "after": *c.PageInfo.EndCursor}
				}
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("N=%d %s where %q, pages of %d forward: %v, want %v", n, field, f, k, got, want)
				}
				// Backward through it.
				got = nil
				args = map[string]any{"last": k}
				for {
					c := filteredPage(t, b, field, onBoard, n, where, args)
					got = append(placements(c), got...)
					if !c.PageInfo.HasPreviousPage {
						break
					}
					args = map[string]any{"last": k, "before": *c.PageInfo.StartCursor}
				}
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("N=%d %s where %q, pages of %d backward: %v, want %v", n, field, f, k, got, want)
				}
				// After and before cursors of any solution of the
				// listing's kind, matching or not.
				for range 3 {
					var candidates []solver.Placement
					for _, p := range all {
						if !unique || solver.IsCanonical(p) {
							candidates = append(candidates, p)
						}
					}
					at := candidates[r.IntN(len(candidates))]
					cursor := graph.EncodeCursor(unique, at)
					after := filteredPage(t, b, field, onBoard, n, where, map[string]any{"first": k, "after": cursor})
					before := filteredPage(t, b, field, onBoard, n, where, map[string]any{"last": k, "before": cursor})
					i := 0
					for i < len(want) && want[i].Compare(at) <= 0 {
						i++
					}
					j := 0
					for j < len(want) && want[j].Compare(at) < 0 {
						j++
					}
					if w := want[i:min(i+k, len(want))]; !slices.EqualFunc(placements(after), w, slices.Equal) {
						t.Fatalf("N=%d %s where %q: first %d after %v: %v, want %v", n, field, f, k, at, placements(after), w)
					}
					if w := want[max(j-k, 0):j]; !slices.EqualFunc(placements(before), w, slices.Equal) {
						t.Fatalf("N=%d %s where %q: last %d before %v: %v, want %v", n, field, f, k, at, placements(before), w)
					}
				}
			}
		}
	}
}

func collectAll(n int) []solver.Placement {
	var out []solver.Placement
	for p := range solver.All(n) {
		out = append(out, p.Clone())
	}
	return out
}

// TestFilteredRanksAreRanksInTheListing checks that the solutions of a
// filtered page carry their rank among all solutions of N, not their
// position in the filtered page.
func TestFilteredRanksAreRanksInTheListing(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	const n = 8
	all := collectAll(n)
	f := solver.Filter{Queens: []solver.Square{{Row: 2, Col: 5}}}
	c := filteredPage(t, b, "solutions", false, n, whereOf(f), map[string]any{"first": 5})
	if len(c.Edges) == 0 {
		t.Fatal("no solution has a queen on (2, 5)")
	}
	for _, e := range c.Edges {
		want := slices.IndexFunc(all, func(p solver.Placement) bool { return slices.Equal(p, e.Node.Placement) }) + 1
		if got := apitest.Uint64(t, e.Node.Rank); got != uint64(want) {
			t.Errorf("%v: rank %d, want %d", e.Node.Placement, got, want)
		}
	}
	// And the classes' ranks among all classes, in a unique listing.
	var classes []solver.Placement
	for p := range solver.AllUnique(n) {
		classes = append(classes, p.Clone())
	}
	c = filteredPage(t, b, "uniqueSolutions", true, n, whereOf(f), map[string]any{"last": 4})
	if len(c.Edges) < 2 {
		t.Fatalf("%d classes have a member with a queen on (2, 5), want 2 or more", len(c.Edges))
	}
	for _, e := range c.Edges {
		want := slices.IndexFunc(classes, func(p solver.Placement) bool { return slices.Equal(p, e.Node.Placement) }) + 1
		if got := apitest.Uint64(t, e.Node.UniqueRank); want == 0 || got != uint64(want) {
			t.Errorf("%v: uniqueRank %d, want %d", e.Node.Placement, got, want)
		}
	}
}

func TestFilteredCounts(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	for n := 1; n <= 10; n++ {
		all := collectAll(n)
		if len(all) == 0 {
			continue
		}
		for range 3 {
			f := randomWhere(r, n, all)
			var data struct {
				Count struct {
					Total, Unique *string
					Classes       *struct{ Orbit8 string }
					Source        *string
					State         string
				}
			}
			b.Query(t, `query($n: Int!, $where: SolutionFilter) { count(n: $n, where: $where) { total unique classes { orbit8 } source state } }`,
				map[string]any{"n": n, "where": whereOf(f)}, &data)
			c := data.Count
			wantTotal, wantUnique := len(matchingListing(n, f, false)), len(matchingListing(n, f, true))
			if apitest.Uint64(t, c.Total) != uint64(wantTotal) || apitest.Uint64(t, c.Unique) != uint64(wantUnique) || (c.Classes == nil) == f.IsZero() || c.Source == nil || !f.IsZero() && *c.Source != "SOLVER" {
				t.Fatalf("N=%d where %q: %+v, want total %d unique %d, classes only for the empty filter", n, f, c, wantTotal, wantUnique)
			}
		}
	}
}

func TestFilterErrors(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	many := []square{}
	for i := range 17 {
		many = append(many, square{i % 8, i / 8})
	}
	for _, c := range []struct {
		name, query string
		where       map[string]any
		want        string // in the message
	}{
		{"queen off the board", `solutions(n: 8, where: $where) { totalCount }`, map[string]any{"queens": []square{{8, 0}}}, "where.queens[0] is (row 8, col 0), off the board"},
		{"empty off the board", `count(n: 8, where: $where) { total }`, map[string]any{"empty": []square{{0, 0}, {0, -1}}}, "where.empty[1]"},
		{"too many on the board", `board(n: 8) { uniqueSolutions(where: $where) { totalCount } }`, map[string]any{"empty": many}, "at most 2N = 16"},
	} {
		r := b.Post(t, apitest.Request{Query: `query($where: SolutionFilter) { ` + c.query + ` }`, Variables: map[string]any{"where": c.where}})
		if r.Code() != "BAD_USER_INPUT" || !strings.Contains(r.Message(), c.want) {
			t.Errorf("%s: %s %q, want BAD_USER_INPUT saying %q", c.name, r.Code(), r.Message(), c.want)
		}
	}
}

// TestFilteredCountsOverBudget: counts that do not fit the request's
// solver time answer null with TIMEOUT, and the rest of the answer
// stands: count's state, a connection's page.
func TestFilteredCountsOverBudget(t *testing.T) {
	t.Parallel()
	// Budget enough for a page even under the race detector; no count of
	// N=24 with one blocked square fits in it.
	b := apitest.Setup(t, func(c *server.Config) { c.Graph.SolverBudget = 2 * time.Second })
	// One blocked square leaves nearly all of N=24's 2.3×10^14 solutions.
	where := map[string]any{"empty": []square{{23, 23}}}
	vars := map[string]any{"where": where}
	r := b.Post(t, apitest.Request{Query: `query($where: SolutionFilter) { count(n: 24, where: $where) { total unique state } }`, Variables: vars})
	var count struct {
		Count struct {
			Total, Unique *string
			State         string
		}
	}
	if err := json.Unmarshal(r.Data, &count); err != nil {
		t.Fatal(err)
	}
	if c := count.Count; c.Total != nil || c.Unique != nil || c.State != "UNKNOWN" {
		t.Errorf("count over budget: %+v, want null counts and the state", c)
	}
	if len(r.Errors) != 1 || r.Code() != "TIMEOUT" || fmt.Sprint(r.Errors[0].Path) != "[count]" {
		t.Errorf("count over budget: errors %s, want one TIMEOUT on count", r.Raw)
	}
	if !strings.Contains(r.Message(), "precomputeCount(n: 24") {
		t.Errorf("count over budget: %q does not point to precomputeCount", r.Message())
	}
	// The page alone fits the budget and goes into the page cache; asked
	// again with its totalCount, the page comes from the cache and the
	// count spends the whole budget.
	page := `query($where: SolutionFilter) { solutions(n: 24, first: 1, where: $where) { edges { cursor } } }`
	b.Query(t, page, vars, nil)
	r = b.Post(t, apitest.Request{Query: `query($where: SolutionFilter) { solutions(n: 24, first: 1, where: $where) { totalCount edges { cursor } } }`, Variables: vars})
	var conn struct {
		Solutions struct {
			TotalCount *string
			Edges      []struct{ Cursor string }
		}
	}
	if err := json.Unmarshal(r.Data, &conn); err != nil {
		t.Fatal(err)
	}
	if c := conn.Solutions; c.TotalCount != nil || len(c.Edges) != 1 {
		t.Errorf("connection over budget: totalCount %v, %d edges; want null and the page of 1", c.TotalCount, len(c.Edges))
	}
	if len(r.Errors) != 1 || r.Code() != "TIMEOUT" || fmt.Sprint(r.Errors[0].Path) != "[solutions totalCount]" {
		t.Errorf("totalCount over budget: errors %s, want one TIMEOUT on solutions.totalCount", r.Raw)
	}
}

// TestFilteredPagesOfAStoredBoard: on a board in the store, a filtered
// listing comes from the solver (the same order and cursors), its ranks
// from the store, and its totalCount is the filtered count.
func TestFilteredPagesOfAStoredBoard(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		const n = 8
		fill(t, st, n, nil)
		b := serve(t, st)
		f := solver.Filter{Queens: []solver.Square{{Row: 6, Col: 1}}, Empty: []solver.Square{{Row: 0, Col: 2}}}
		for _, unique := range []bool{false, true} {
			field := "solutions"
			var listing []solver.Placement
			for p := range solver.All(n) {
				if !unique || solver.IsCanonical(p) {
					listing = append(listing, p.Clone())
				}
			}
			if unique {
				field = "uniqueSolutions"
			}
			want := matchingListing(n, f, unique)
			c := filteredPage(t, b, field, true, n, whereOf(f), map[string]any{"first": 50})
			if c.Source != "SOLVER" || apitest.Uint64(t, c.TotalCount) != uint64(len(want)) || !slices.EqualFunc(placements(c), want, slices.Equal) {
				t.Fatalf("%s where %q: %s, %v, %v; want SOLVER and %v", field, f, c.Source, *c.TotalCount, placements(c), want)
			}
			for _, e := range c.Edges {
				rank := e.Node.Rank
				if unique {
					rank = e.Node.UniqueRank
				}
				at := slices.IndexFunc(listing, func(p solver.Placement) bool { return slices.Equal(p, e.Node.Placement) }) + 1
				if apitest.Uint64(t, rank) != uint64(at) {
					t.Errorf("%s where %q: %v has rank %s, want %d", field, f, e.Node.Placement, *rank, at)
				}
			}
		}
	})
}

// TestFilterComplexity: a filter makes a count or a listing a search, and
// costs more under the complexity limit, given inline or as a variable.
func TestFilterComplexity(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.ComplexityLimit = 40 })
	where := map[string]any{"queens": []square{{0, 0}}}
	for _, c := range []struct {
		query string
		vars  map[string]any
		ok    bool
	}{
		{`{ count(n: 8) { total } }`, nil, true},
		{`{ count(n: 8, where: {}) { total } }`, nil, true},
		{`{ count(n: 8, where: { queens: [{ row: 0, col: 0 }] }) { total } }`, nil, false},
		{`query($where: SolutionFilter) { count(n: 8, where: $where) { total } }`, map[string]any{"where": where}, false},
		{`query($where: SolutionFilter) { solutions(n: 8, first: 1, where: $where) { totalCount } }`, map[string]any{"where": where}, false},
		{`query($where: SolutionFilter) { board(n: 8) { uniqueSolutions(first: 1, where: $where) { totalCount } } }`, map[string]any{"where": where}, false},
	} {
		r := b.Post(t, apitest.Request{Query: c.query, Variables: c.vars})
		if refused := r.Reason() == "COMPLEXITY_LIMIT_EXCEEDED"; refused == c.ok {
			t.Errorf("%s: %d %s; want refused %v", c.query, r.Status, r.Raw, !c.ok)
		}
	}
}
