package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// maxCompleteSquares bounds each of complete's lists of squares: a board
// of MaxCompleteN rows has at most that many queens, and the request body
// limit bounds the lists before this does.
const maxCompleteSquares = 10_000

// completeArgs checks complete's arguments and returns them as the
// solver's filter.
func completeArgs(n int, queens, empty []*SquareInput) (solver.Filter, error) {
	if n < 1 || n > solver.MaxCompleteN {
		return solver.Filter{}, badInput("n must be from 1 to %d (the largest board complete takes), got %d", solver.MaxCompleteN, n)
	}
	var f solver.Filter
	for _, list := range []struct {
		name string
		in   []*SquareInput
		out  *[]solver.Square
	}{{"queens", queens, &f.Queens}, {"empty", empty, &f.Empty}} {
		if len(list.in) > maxCompleteSquares {
			return solver.Filter{}, badInput("%s: %d squares; at most %d are allowed", list.name, len(list.in), maxCompleteSquares)
		}
		for _, s := range list.in {
			*list.out = append(*list.out, solver.Square{Row: s.Row, Col: s.Col})
		}
	}
	if err := f.Check(n); err != nil {
		return solver.Filter{}, badInput("%v", err)
	}
	return f, nil
}

// Complete completes a board on a solver slot of ctx's operation, within
// its solver budget. Running out of it is an answer, Unknown, not an
// error: the reason says so. Only a client that went away gets an error
// (and a search that could not start for want of a slot, TIMEOUT).
func (s *SolverSource) Complete(ctx context.Context, n int, f solver.Filter) (solver.Completion, error) {
	what := fmt.Sprintf("completing a board of N=%d", n)
	var c solver.Completion
	err := s.search(ctx, what, func(checkpoint func() error) error {
		var err error
		c, err = solver.Complete(ctx, n, f, solver.Budget{Checkpoint: checkpoint})
		return err
	})
	op := s.operationOf(ctx)
	switch {
	case errors.Is(err, errBudget):
		// The budget was spent by the request's other fields before
		// this one started.
		return solver.Completion{State: solver.Unknown, Reason: fmt.Sprintf("undecided: the request used up its solver time of %s, shared by all of its fields, before the search started", op.budget)}, nil
	case err != nil:
		return solver.Completion{}, err
	}
	if c.State == solver.Unknown {
		switch {
		case errors.Is(c.Stopped, errBudget):
			c.Reason = fmt.Sprintf("undecided: the search stopped after %d nodes when the request's solver time of %s, shared by all of its fields, ran out", c.Nodes, op.budget)
		case errors.Is(c.Stopped, context.DeadlineExceeded):
			c.Reason = fmt.Sprintf("undecided: the search stopped after %d nodes when the request's time budget ran out", c.Nodes)
		case errors.Is(c.Stopped, context.Canceled):
			return solver.Completion{}, c.Stopped
		}
	}
	return c, nil
}

// completionModel is the schema's form of a completion.
func completionModel(c solver.Completion) *Completion {
	out := &Completion{}
	switch c.State {
	case solver.Completed:
		out.State, out.Placement = CompletionStateCompleted, c.Placement
		return out
	case solver.Impossible:
		out.State = CompletionStateImpossible
	default:
		out.State = CompletionStateUnknown
	}
	out.Reason = &c.Reason
	return out
}
