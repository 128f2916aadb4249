package solver_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// checkCompleted fails unless c is Completed with a solution of N that
// meets f.
func checkCompleted(t testing.TB, n int, f solver.Filter, c solver.Completion) {
	t.Helper()
	if c.State != solver.Completed {
		t.Fatalf("N=%d, filter %q: %v (%s), want completed", n, f, c.State, c.Reason)
	}
	if err := solver.ValidateN(n, c.Placement); err != nil {
		t.Fatalf("N=%d, filter %q: completion %v is not a solution: %v", n, f, c.Placement, err)
	}
	if !f.Matches(c.Placement) {
		t.Fatalf("N=%d, filter %q: completion %v does not meet the filter", n, f, c.Placement)
	}
}

// randomSquare is a square of N drawn uniformly.
func randomSquare(r *rand.Rand, n int) solver.Square {
	return solver.Square{Row: r.IntN(n), Col: r.IntN(n)}
}

// randomCompletionFilter pins 0 to 4 queens and blocks 0 to 6 squares. Half the
// time the pinned queens come from a solution (when one is given), so
// that completable filters are common; otherwise they are anywhere, and
// may attack each other.
func randomCompletionFilter(r *rand.Rand, n int, sols []solver.Placement) solver.Filter {
	var f solver.Filter
	pins := r.IntN(5)
	if len(sols) > 0 && r.IntN(2) == 0 {
		p := sols[r.IntN(len(sols))]
		for range pins {
			row := r.IntN(n)
			f.Queens = append(f.Queens, solver.Square{Row: row, Col: p[row]})
		}
	} else {
		for range pins {
			f.Queens = append(f.Queens, randomSquare(r, n))
		}
	}
	for range r.IntN(7) {
		f.Empty = append(f.Empty, randomSquare(r, n))
	}
	return f
}

// TestCompleteAgainstEnumeration checks every answer of the exact search
// for N=1..12 on random filters against the enumeration: Completed
// answers are solutions that meet the filter, Impossible ones have no
// matching solution among all of N's, and with no budget nothing is
// Unknown.
func TestCompleteAgainstEnumeration(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for n := 1; n <= 12; n++ {
		r := rand.New(rand.NewPCG(seed, uint64(n)))
		var sols []solver.Placement
		for p := range solver.All(n) {
			sols = append(sols, p.Clone())
		}
		states := map[solver.CompletionState]int{}
		for range 400 {
			f := randomCompletionFilter(r, n, sols)
			c, err := solver.Complete(context.Background(), n, f, solver.Budget{})
			if err != nil {
				t.Fatalf("N=%d, filter %q: %v", n, f, err)
			}
			states[c.State]++
			exists := slices.ContainsFunc(sols, f.Matches)
			switch c.State {
			case solver.Completed:
				checkCompleted(t, n, f, c)
			case solver.Impossible:
				if exists {
					t.Fatalf("N=%d, filter %q: impossible (%s), but the enumeration has a matching solution", n, f, c.Reason)
				}
				if c.Reason == "" {
					t.Fatalf("N=%d, filter %q: impossible without a reason", n, f)
				}
			default:
				t.Fatalf("N=%d, filter %q: unknown (%s) without a budget", n, f, c.Reason)
			}
		}
		t.Logf("N=%d: %v", n, states)
	}
}

// randomPins returns k pinned queens of N that do not attack each other.
func randomPins(r *rand.Rand, n, k int) []solver.Square {
	var pins []solver.Square
	for len(pins) < k {
		s := randomSquare(r, n)
		ok := true
		for _, q := range pins {
			dr, dc := s.Row-q.Row, s.Col-q.Col
			ok = ok && dr != 0 && dc != 0 && dr != dc && dr != -dc
		}
		if ok {
			pins = append(pins, s)
		}
	}
	return pins
}

// TestCompleteLarge completes boards above the exact search's range with
// pinned queens that do not attack each other and a few blocked squares
// not attacked by them; with a generous budget all complete.
func TestCompleteLarge(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, n := range []int{33, 40, 64, 100, 257, 1000} {
		for range 10 {
			f := solver.Filter{Queens: randomPins(r, n, 1+r.IntN(min(10, n/10)))}
			for range r.IntN(20) {
				f.Empty = append(f.Empty, randomSquare(r, n))
			}
			f.Empty = slices.DeleteFunc(f.Empty, func(e solver.Square) bool { return slices.Contains(f.Queens, e) })
			c, err := solver.Complete(context.Background(), n, f, solver.Budget{Nodes: 1 << 26})
			if err != nil {
				t.Fatal(err)
			}
			checkCompleted(t, n, f, c)
		}
	}
}

// TestCompleteThousands completes N=1,000 and N=10,000 with 10 random
// pinned queens that do not attack each other; how fast is
// BenchmarkComplete's business.
func TestCompleteThousands(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for _, n := range []int{1000, solver.MaxCompleteN} {
		for range 3 {
			f := solver.Filter{Queens: randomPins(r, n, 10)}
			c, err := solver.Complete(context.Background(), n, f, solver.Budget{Nodes: 1 << 28})
			if err != nil {
				t.Fatal(err)
			}
			checkCompleted(t, n, f, c)
		}
	}
}

// TestCompleteProvesStarvedLines builds large boards where a row (or a
// column) has every square blocked or attacked by pinned queens:
// Impossible, naming the line.
func TestCompleteProvesStarvedLines(t *testing.T) {
	t.Parallel()
	const n = 50
	pins := []solver.Square{{Row: 0, Col: 10}, {Row: 1, Col: 30}}
	attacked := func(s solver.Square) bool {
		for _, q := range pins {
			dr, dc := s.Row-q.Row, s.Col-q.Col
			if dr == 0 || dc == 0 || dr == dc || dr == -dc {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		line string
		sq   func(i int) solver.Square
	}{
		{"row 20", func(i int) solver.Square { return solver.Square{Row: 20, Col: i} }},
		{"column 7", func(i int) solver.Square { return solver.Square{Row: i, Col: 7} }},
	} {
		f := solver.Filter{Queens: pins}
		for i := range n {
			if s := tc.sq(i); !attacked(s) {
				f.Empty = append(f.Empty, s)
			}
		}
		c, err := solver.Complete(context.Background(), n, f, solver.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if c.State != solver.Impossible || !strings.Contains(c.Reason, tc.line) {
			t.Fatalf("%s starved: %v (%s), want impossible naming it", tc.line, c.State, c.Reason)
		}
		// One square given back: no longer a proof, and a completion.
		f.Empty = f.Empty[1:]
		c, err = solver.Complete(context.Background(), n, f, solver.Budget{Nodes: 1 << 26})
		if err != nil {
			t.Fatal(err)
		}
		checkCompleted(t, n, f, c)
	}
}

// TestCompleteContradictions: pinned queens that attack each other, or a
// square pinned and blocked, are Impossible at once, on any board.
func TestCompleteContradictions(t *testing.T) {
	t.Parallel()
	for _, n := range []int{8, 500} {
		for _, f := range []solver.Filter{
			{Queens: []solver.Square{{1, 1}, {4, 4}}},
			{Queens: []solver.Square{{1, 1}, {1, 5}}},
			{Queens: []solver.Square{{0, 2}, {5, 2}}},
			{Queens: []solver.Square{{2, 3}}, Empty: []solver.Square{{2, 3}}},
		} {
			c, err := solver.Complete(context.Background(), n, f, solver.Budget{Nodes: 1})
			if err != nil {
				t.Fatal(err)
			}
			if c.State != solver.Impossible || c.Nodes != 0 {
				t.Fatalf("N=%d, filter %q: %v after %d nodes (%s), want impossible at once", n, f, c.State, c.Nodes, c.Reason)
			}
		}
	}
}

// TestCompleteUnknownOnlyWhenStopped: a tiny node budget, a cancelled
// context and a failing checkpoint each give Unknown, saying what stopped
// the search; the same questions without them are decided.
func TestCompleteUnknownOnlyWhenStopped(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	errTurn := errors.New("turn over")
	failing := 0
	for _, n := range []int{12, 32, 1000} {
		for _, tc := range []struct {
			name   string
			ctx    context.Context
			budget solver.Budget
			want   error
		}{
			{"nodes", context.Background(), solver.Budget{Nodes: 3}, solver.ErrNodeBudget},
			{"context", cancelled, solver.Budget{}, context.Canceled},
			{"checkpoint", context.Background(), solver.Budget{Checkpoint: func() error { failing++; return errTurn }}, errTurn},
		} {
			c, err := solver.Complete(tc.ctx, n, solver.Filter{}, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			if c.State != solver.Unknown || !errors.Is(c.Stopped, tc.want) || c.Reason == "" {
				t.Fatalf("N=%d, stopped by %s: %v, %v (%q), want unknown stopped by %v", n, tc.name, c.State, c.Stopped, c.Reason, tc.want)
			}
		}
		c, err := solver.Complete(context.Background(), n, solver.Filter{}, solver.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		checkCompleted(t, n, solver.Filter{}, c)
	}
	if failing == 0 {
		t.Fatal("the checkpoint was never called")
	}
}

// TestCompleteIsReproducible: the same question, its squares in any
// order and repeated, gets the same answer.
func TestCompleteIsReproducible(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{20, 300} {
		f := solver.Filter{Queens: randomPins(r, n, 4), Empty: []solver.Square{randomSquare(r, n), randomSquare(r, n)}}
		f.Empty = slices.DeleteFunc(f.Empty, func(e solver.Square) bool { return slices.Contains(f.Queens, e) })
		a, err := solver.Complete(context.Background(), n, f, solver.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		checkCompleted(t, n, f, a)
		g := solver.Filter{Queens: slices.Clone(f.Queens), Empty: append(slices.Clone(f.Empty), f.Empty...)}
		slices.Reverse(g.Queens)
		b, err := solver.Complete(context.Background(), n, g, solver.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Placement, b.Placement) {
			t.Fatalf("N=%d: %v, then %v for the same filter", n, a.Placement, b.Placement)
		}
	}
}

// TestCompleteRefusesBadInput: boards out of range and squares off the
// board are errors, not answers.
func TestCompleteRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n int
		f solver.Filter
	}{
		{0, solver.Filter{}},
		{solver.MaxCompleteN + 1, solver.Filter{}},
		{8, solver.Filter{Queens: []solver.Square{{8, 0}}}},
		{8, solver.Filter{Empty: []solver.Square{{0, -1}}}},
		{100, solver.Filter{Empty: []solver.Square{{100, 3}}}},
	} {
		if _, err := solver.Complete(context.Background(), tc.n, tc.f, solver.Budget{}); err == nil {
			t.Fatalf("N=%d, filter %q: no error", tc.n, tc.f)
		}
	}
}

// TestCompleteAlmostFullBoards pins every queen of a constructed
// solution, or all but a few: the completion must find the rest, which
// for all but one queen is forced.
func TestCompleteAlmostFullBoards(t *testing.T) {
	t.Parallel()
	for _, n := range []int{8, 32, 33, 1000} {
		p, err := solver.Solve(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, left := range []int{0, 1, 2, 5} {
			var f solver.Filter
			for r := left; r < n; r++ {
				f.Queens = append(f.Queens, solver.Square{Row: r, Col: p[r]})
			}
			c, err := solver.Complete(context.Background(), n, f, solver.Budget{Nodes: 1 << 24})
			if err != nil {
				t.Fatal(err)
			}
			checkCompleted(t, n, f, c)
		}
	}
}

// TestCompleteBudgetBoundsManyPins: half the rows of N=10,000 pinned (to
// a constructed solution's columns) is work for the cheap proof and for
// the repair alike; a node budget stops both, at the budget.
func TestCompleteBudgetBoundsManyPins(t *testing.T) {
	t.Parallel()
	const n = solver.MaxCompleteN
	p, err := solver.Solve(n)
	if err != nil {
		t.Fatal(err)
	}
	var f solver.Filter
	for r := 0; r < n; r += 2 {
		f.Queens = append(f.Queens, solver.Square{Row: r, Col: p[r]})
	}
	for _, budget := range []uint64{1000, 1 << 20} {
		c, err := solver.Complete(context.Background(), n, f, solver.Budget{Nodes: budget})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.State == solver.Completed:
			checkCompleted(t, n, f, c)
		case c.State != solver.Unknown || !errors.Is(c.Stopped, solver.ErrNodeBudget) || c.Nodes != budget+1:
			t.Fatalf("budget %d: %v after %d nodes (%v, %s), want unknown at the budget", budget, c.State, c.Nodes, c.Stopped, c.Reason)
		}
	}
}
