package solverpool

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// The searches beside the listing: filtered counts, tallies of squares
// and completions, each on one slot within the operation's budget.

// CountFiltered counts the solutions of N that f matches (Total) and the
// classes with a member that matches (Unique), on one solver slot, within
// the operation's budget (TIMEOUT past it).
func (s *Pool) CountFiltered(ctx context.Context, n int, f solver.Filter) (solver.Counts, error) {
	var c solver.Counts
	what := fmt.Sprintf("counting the solutions of N=%d that match the filter with the solver", n)
	err := s.search(ctx, what, func(checkpoint func() error) error {
		var err error
		c, err = solver.CountFiltered(ctx, n, f, solver.CountOptions{Workers: 1, Checkpoint: checkpoint})
		return err
	})
	return c, err
}

// SquareCountsFiltered tallies the squares of the solutions of N that f
// matches (solver.SquareCountsFiltered) on one solver slot, within the
// operation's budget (TIMEOUT past it).
func (s *Pool) SquareCountsFiltered(ctx context.Context, n int, f solver.Filter) (solver.SquareCounts, error) {
	var sc solver.SquareCounts
	what := fmt.Sprintf("tallying the squares of the solutions of N=%d that match the filter with the solver", n)
	err := s.search(ctx, what, func(checkpoint func() error) error {
		var err error
		sc, _, err = solver.SquareCountsFiltered(ctx, n, f, solver.CountOptions{Checkpoint: checkpoint})
		return err
	})
	return sc, err
}

// Complete completes a board on a solver slot of ctx's operation, within
// its solver budget. Running out of it is an answer, Unknown, not an
// error: the reason says so. Only a client that went away gets an error
// (and a search that could not start for want of a slot, TIMEOUT).
func (s *Pool) Complete(ctx context.Context, n int, f solver.Filter) (solver.Completion, error) {
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
