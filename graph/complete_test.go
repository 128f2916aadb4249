package graph_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// completion is complete's answer.
type completion struct {
	State     string
	Placement []int
	Reason    *string
}

const completeQuery = `query($n: Int!, $q: [SquareInput!], $e: [SquareInput!]) {
  complete(n: $n, queens: $q, empty: $e) { state placement reason }
}`

// squaresArg writes squares as complete's arguments.
func squaresArg(squares []solver.Square) []map[string]int {
	out := []map[string]int{}
	for _, s := range squares {
		out = append(out, map[string]int{"row": s.Row, "col": s.Col})
	}
	return out
}

func completeOver(t *testing.T, b *apitest.Bundle, n int, f solver.Filter) completion {
	t.Helper()
	var out struct{ Complete completion }
	b.Query(t, completeQuery, map[string]any{"n": n, "q": squaresArg(f.Queens), "e": squaresArg(f.Empty)}, &out)
	return out.Complete
}

// checkCompletion fails unless c is COMPLETED with a solution of N that
// meets f, and no reason.
func checkCompletion(t *testing.T, n int, f solver.Filter, c completion) {
	t.Helper()
	if c.State != "COMPLETED" || c.Reason != nil {
		t.Fatalf("N=%d, filter %q: %s (%v), want COMPLETED without a reason", n, f, c.State, c.Reason)
	}
	if err := solver.ValidateN(n, c.Placement); err != nil || !f.Matches(c.Placement) {
		t.Fatalf("N=%d, filter %q: %v is not a solution that meets the filter (%v)", n, f, c.Placement, err)
	}
}

// TestCompleteOverTheAPI asks complete for random filters of N=6 to 9
// and checks each answer against the enumeration: COMPLETED with a
// matching solution, IMPOSSIBLE (with a reason) only when none matches.
func TestCompleteOverTheAPI(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 15))
	seen := map[string]bool{}
	for n := 6; n <= 9; n++ {
		var sols []solver.Placement
		for p := range solver.All(n) {
			sols = append(sols, p.Clone())
		}
		for range 15 {
			var f solver.Filter
			p := sols[r.IntN(len(sols))]
			for range r.IntN(4) {
				row := r.IntN(n)
				col := p[row]
				if r.IntN(4) == 0 {
					col = r.IntN(n) // perhaps no solution's
				}
				f.Queens = append(f.Queens, solver.Square{Row: row, Col: col})
			}
			for range r.IntN(7) {
				f.Empty = append(f.Empty, solver.Square{Row: r.IntN(n), Col: r.IntN(n)})
			}
			c := completeOver(t, b, n, f)
			seen[c.State] = true
			exists := slices.ContainsFunc(sols, f.Matches)
			switch {
			case exists:
				checkCompletion(t, n, f, c)
			case c.State != "IMPOSSIBLE" || c.Reason == nil || *c.Reason == "" || c.Placement != nil:
				t.Fatalf("N=%d, filter %q: %+v, want IMPOSSIBLE with a reason: no solution matches", n, f, c)
			}
		}
	}
	t.Logf("states seen: %v", seen)
}

// TestCompleteLargeBoards completes N=1,000 and N=10,000 with pinned
// queens from a solution and a blocked square, over the API.
func TestCompleteLargeBoards(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for _, n := range []int{1000, solver.MaxCompleteN} {
		p, err := solver.Solve(n)
		if err != nil {
			t.Fatal(err)
		}
		f := solver.Filter{Empty: []solver.Square{{Row: 1, Col: (p[1] + 1) % n}}}
		for row := 0; row < n; row += n / 10 {
			f.Queens = append(f.Queens, solver.Square{Row: row, Col: p[row]})
		}
		checkCompletion(t, n, f, completeOver(t, b, n, f))
	}
}

// TestCompleteImpossibleReasons: what proves a board impossible is said.
func TestCompleteImpossibleReasons(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for _, tc := range []struct {
		n    int
		f    solver.Filter
		want string
	}{
		{8, solver.Filter{Queens: []solver.Square{{Row: 1, Col: 1}, {Row: 4, Col: 4}}}, "the pinned queens at (row 1, col 1) and (row 4, col 4) attack each other"},
		{5000, solver.Filter{Queens: []solver.Square{{Row: 7, Col: 0}}, Empty: []solver.Square{{Row: 7, Col: 0}}}, "the square (row 7, col 0) is both pinned and empty"},
		{3, solver.Filter{}, "the exact search tried every placement"},
	} {
		c := completeOver(t, b, tc.n, tc.f)
		if c.State != "IMPOSSIBLE" || c.Reason == nil || !strings.Contains(*c.Reason, tc.want) {
			t.Errorf("N=%d, filter %q: %+v, want IMPOSSIBLE saying %q", tc.n, tc.f, c, tc.want)
		}
	}
}

// TestCompleteUnknownWhenBudgetRunsOut: with a solver budget too small to
// decide anything, complete answers UNKNOWN and says the budget ran out.
func TestCompleteUnknownWhenBudgetRunsOut(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.Graph.SolverBudget = time.Nanosecond })
	for _, n := range []int{12, 1000} {
		c := completeOver(t, b, n, solver.Filter{})
		if c.State != "UNKNOWN" || c.Placement != nil || c.Reason == nil || !strings.Contains(*c.Reason, "solver time of 1ns") {
			t.Errorf("N=%d with a budget of 1ns: %+v, want UNKNOWN saying the solver time ran out", n, c)
		}
	}
	// The field that searches second (the fields of a request take turns)
	// finds the budget spent before it starts.
	var two struct{ A, B completion }
	b.Query(t, `{ a: complete(n: 20) { state placement reason } b: complete(n: 21) { state placement reason } }`, nil, &two)
	for _, c := range []completion{two.A, two.B} {
		if c.State != "UNKNOWN" || c.Reason == nil || !strings.Contains(*c.Reason, "solver time of 1ns") {
			t.Errorf("two completions with a budget of 1ns: %+v, want UNKNOWN saying the solver time ran out", c)
		}
	}
	if a, b := strings.Contains(*two.A.Reason, "before the search started"), strings.Contains(*two.B.Reason, "before the search started"); a == b {
		t.Errorf("the completions say %q and %q; want the one that searched second to say the budget was spent before it started", *two.A.Reason, *two.B.Reason)
	}
}

// TestCompleteRefusesBadInput: N out of range, squares off the board and
// too many squares are BAD_USER_INPUT errors saying what is allowed.
func TestCompleteRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	many := make([]solver.Square, 10_001)
	for _, tc := range []struct {
		n    int
		f    solver.Filter
		want string
	}{
		{0, solver.Filter{}, "n must be from 1 to 10000"},
		{10_001, solver.Filter{}, "n must be from 1 to 10000"},
		{8, solver.Filter{Queens: []solver.Square{{Row: 8, Col: 0}}}, "queens[0] is (row 8, col 0), off the board: rows and columns of N=8 go from 0 to 7"},
		{8, solver.Filter{Empty: []solver.Square{{Row: 0, Col: 0}, {Row: 2, Col: -1}}}, "empty[1] is (row 2, col -1), off the board"},
		{10_000, solver.Filter{Empty: many}, "empty: 10001 squares; at most 10000 are allowed"},
	} {
		resp := b.Post(t, apitest.Request{Query: completeQuery, Variables: map[string]any{"n": tc.n, "q": squaresArg(tc.f.Queens), "e": squaresArg(tc.f.Empty)}})
		if resp.Code() != "BAD_USER_INPUT" || !strings.Contains(resp.Message(), tc.want) {
			t.Errorf("N=%d, %d queens, %d empty: %d %s, want BAD_USER_INPUT saying %q", tc.n, len(tc.f.Queens), len(tc.f.Empty), resp.Status, resp.Raw, tc.want)
		}
	}
}

// TestCompleteCostGrowsWithN: complete's complexity grows with N, so a
// request cannot ask for many boards of 10,000 rows at once; as many of
// small boards pass.
func TestCompleteCostGrowsWithN(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	aliases := func(n int) string {
		var q strings.Builder
		q.WriteString("{")
		for i := range 20 {
			fmt.Fprintf(&q, " c%d: complete(n: %d) { state placement }", i, n)
		}
		q.WriteString(" }")
		return q.String()
	}
	if resp := b.Post(t, apitest.Request{Query: aliases(8)}); resp.Status != http.StatusOK || len(resp.Errors) > 0 {
		t.Fatalf("20 completions of N=8: %d %s", resp.Status, resp.Raw)
	}
	resp := b.Post(t, apitest.Request{Query: aliases(solver.MaxCompleteN)})
	if resp.Code() != "BAD_USER_INPUT" || resp.Reason() != "COMPLEXITY_LIMIT_EXCEEDED" {
		t.Fatalf("20 completions of N=10,000: %d %.300s, want COMPLEXITY_LIMIT_EXCEEDED", resp.Status, resp.Raw)
	}
}
