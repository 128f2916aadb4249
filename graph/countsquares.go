package graph

import (
	"context"
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// The statistics of count(n, where): the board's stored ones without a
// filter, otherwise the solver's tally on the request's budget, like the
// filtered counts beside them.

// squareCountsKey names a tally by the solver in an operation: both
// tables come from one walk.
type squareCountsKey struct {
	n      int
	filter string
}

// countSquareCounts returns the statistics that c's squareCounts and
// uniqueSquareCounts answer with: nil when unknown and not to be tallied
// on the spot (no filter, N past CountMaxN), an error of code TIMEOUT
// when the tally did not fit the request's solver budget.
func (r *Resolver) countSquareCounts(ctx context.Context, c *CountResult) (*solver.SquareCounts, error) {
	if c.Filter.IsZero() {
		s, err := r.squareCounts(ctx, c.Board)
		if s != nil || err != nil {
			return s, err
		}
		if c.N > r.opts.CountMaxN {
			return nil, nil
		}
	}
	// A tally by the solver is for this request: it may time out, and the
	// board's stored statistics may come.
	markVolatile(ctx)
	key := squareCountsKey{n: c.N, filter: c.Filter.String()}
	v, err := r.solver.operationOf(ctx).once(key, func() (any, error) {
		return r.solver.SquareCountsFiltered(ctx, c.N, c.Filter)
	})
	if err != nil {
		return nil, dependencyError(ctx, fmt.Sprintf("tallying the squares of the solutions of N=%d that match the filter", c.N), err)
	}
	s := v.(solver.SquareCounts)
	return &s, nil
}

// SquareCountsFiltered tallies the squares of the solutions of N that f
// matches (solver.SquareCountsFiltered) on one solver slot, within the
// operation's budget (TIMEOUT past it).
func (s *SolverSource) SquareCountsFiltered(ctx context.Context, n int, f solver.Filter) (solver.SquareCounts, error) {
	var sc solver.SquareCounts
	what := fmt.Sprintf("tallying the squares of the solutions of N=%d that match the filter with the solver", n)
	err := s.search(ctx, what, func(checkpoint func() error) error {
		var err error
		sc, _, err = solver.SquareCountsFiltered(ctx, n, f, solver.CountOptions{Checkpoint: checkpoint})
		return err
	})
	return sc, err
}
