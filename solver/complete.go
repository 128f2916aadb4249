package solver

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
)

// MaxCompleteN is the largest board Complete accepts. Up to MaxSearchN it
// searches exactly; above, it constructs and repairs, which for a board of
// 10,000 rows takes milliseconds (docs/PERFORMANCE.md), and the answer
// (one int a row) stays a modest response.
const MaxCompleteN = 10_000

// CompletionState is Complete's verdict.
type CompletionState int

// The three verdicts. Unknown is the zero value: nothing was decided.
const (
	Unknown    CompletionState = iota // the budget ran out first
	Completed                         // Placement is a solution that meets the filter
	Impossible                        // proved: no solution meets the filter
)

func (s CompletionState) String() string {
	switch s {
	case Completed:
		return "completed"
	case Impossible:
		return "impossible"
	}
	return "unknown"
}

// Completion is Complete's answer.
type Completion struct {
	State CompletionState
	// Placement is the solution found, when Completed.
	Placement Placement
	// Reason says why in words: what proves Impossible, what stopped an
	// Unknown search; empty when Completed.
	Reason string
	// Stopped is what stopped an Unknown search: ErrNodeBudget, ctx's
	// error, or the error of Budget.Checkpoint.
	Stopped error
	// Nodes is the work done: search nodes up to MaxSearchN, repair steps
	// above.
	Nodes uint64
}

// ErrNodeBudget is the Stopped of a completion whose Budget.Nodes ran
// out.
var ErrNodeBudget = errors.New("node budget spent")

// Budget bounds a completion's work.
type Budget struct {
	// Nodes bounds the search nodes (up to MaxSearchN) or the repair
	// steps (above); 0 means no bound. Above MaxSearchN, a board that has
	// no completion but escapes the cheap proof is repaired until the
	// bound or the context stops it: give one or the other.
	Nodes uint64
	// Checkpoint, when set, is called every few thousand nodes in the
	// caller's goroutine; an error stops the search (answer Unknown). A
	// server shares its cores through it, as with PageQuery.Checkpoint.
	Checkpoint func() error
}

// checkEvery is how many nodes pass between looks at the context and the
// checkpoint: a few microseconds of work.
const checkEvery = 1 << 12

// Complete looks for a solution of N that has a queen on every square of
// f.Queens and none on any square of f.Empty: n-Queens Completion, and
// Blocked n-Queens, both NP-complete in general, so the answer may be
// Unknown when budget or ctx runs out first. Pinned queens that attack
// each other, or a square both pinned and blocked, are Impossible at
// once. Up to MaxSearchN the answer comes from an exact search (forward
// checking, the most constrained row first), which proves Impossible by
// exhausting it. Above, a greedy construction repaired by min-conflicts
// swaps finds solutions but cannot prove there is none: Impossible only
// when a row or column is left without a square that is neither blocked
// nor attacked by a pinned queen. Answers are reproducible: the random
// choices are seeded from n and f.
//
// The error is for input outside the problem: n outside 1..MaxCompleteN,
// a square off the board.
func Complete(ctx context.Context, n int, f Filter, budget Budget) (Completion, error) {
	if n < 1 || n > MaxCompleteN {
		return Completion{}, fmt.Errorf("solver: N must be between 1 and %d to complete a board, got %d", MaxCompleteN, n)
	}
	if err := f.Check(n); err != nil {
		return Completion{}, err
	}
	f = f.normal()
	if c, ok := f.contradiction(n); ok {
		return c, nil
	}
	g := &gauge{ctx: ctx, budget: budget}
	if !g.check() {
		return Completion{State: Unknown, Stopped: g.stopped, Reason: g.reason(n)}, nil
	}
	var c Completion
	if n <= MaxSearchN {
		c = completeSearch(n, f, g)
	} else if proof, ok := f.starvedLine(n, g); ok {
		c = proof
	} else if g.stopped == nil {
		c = completeRepair(n, f, g)
	}
	c.Nodes = g.nodes
	if c.State == Unknown {
		c.Stopped = g.stopped
		c.Reason = g.reason(n)
	}
	return c, nil
}

// normal returns f with its squares sorted and without repeats, so that
// the answer (and the seed) does not depend on the order they came in.
func (f Filter) normal() Filter {
	sortSquares := func(s []Square) []Square {
		s = slices.Clone(s)
		slices.SortFunc(s, func(a, b Square) int {
			if a.Row != b.Row {
				return a.Row - b.Row
			}
			return a.Col - b.Col
		})
		return slices.Compact(s)
	}
	return Filter{Queens: sortSquares(f.Queens), Empty: sortSquares(f.Empty)}
}

// contradiction finds what makes f impossible among its own squares: two
// pinned queens that attack each other, a square pinned and blocked. f is
// normal and checked against n. It takes time proportional to n and the
// squares, however many queens are pinned.
func (f Filter) contradiction(n int) (Completion, bool) {
	// The index+1 of the first pinned queen on each line; 0 means none.
	rows := make([]int32, n)
	cols := make([]int32, n)
	diag := make([]int32, 2*n-1)
	anti := make([]int32, 2*n-1)
	for i, q := range f.Queens {
		for _, line := range [...]*int32{&rows[q.Row], &cols[q.Col], &diag[q.Row-q.Col+n-1], &anti[q.Row+q.Col]} {
			if *line != 0 {
				a := f.Queens[*line-1]
				return Completion{State: Impossible, Reason: fmt.Sprintf("the pinned queens at (row %d, col %d) and (row %d, col %d) attack each other", a.Row, a.Col, q.Row, q.Col)}, true
			}
			*line = int32(i + 1)
		}
	}
	for _, e := range f.Empty {
		if i := rows[e.Row]; i != 0 && f.Queens[i-1] == e {
			return Completion{State: Impossible, Reason: fmt.Sprintf("the square (row %d, col %d) is both pinned and empty", e.Row, e.Col)}, true
		}
	}
	return Completion{}, false
}

// gauge counts a completion's nodes and says when it must stop.
type gauge struct {
	ctx     context.Context
	budget  Budget
	nodes   uint64
	stopped error
}

// step counts one node and reports whether the search may go on.
func (g *gauge) step() bool {
	if g.stopped != nil {
		return false
	}
	g.nodes++
	if g.budget.Nodes > 0 && g.nodes > g.budget.Nodes {
		g.stopped = ErrNodeBudget
		return false
	}
	return g.nodes&(checkEvery-1) != 0 || g.check()
}

// check looks at the context and the checkpoint.
func (g *gauge) check() bool {
	switch {
	case g.stopped != nil:
	case g.ctx.Err() != nil:
		g.stopped = g.ctx.Err()
	case g.budget.Checkpoint != nil:
		g.stopped = g.budget.Checkpoint()
	}
	return g.stopped == nil
}

func (g *gauge) reason(n int) string {
	how := "the exact search"
	if n > MaxSearchN {
		how = "construction and repair"
	}
	switch {
	case errors.Is(g.stopped, ErrNodeBudget):
		return fmt.Sprintf("%s stopped after its budget of %d nodes, undecided", how, g.budget.Nodes)
	case g.stopped != nil:
		return fmt.Sprintf("%s stopped after %d nodes, undecided: %v", how, g.nodes, g.stopped)
	}
	return fmt.Sprintf("%s gave up after %d nodes, undecided", how, g.nodes)
}

// seed derives the random choices' seed from the question, so that the
// same question gets the same answer.
func (f Filter) seed(n int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:%s", n, f)
	return h.Sum64()
}
