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
	v, err := r.solver.Once(ctx, key, func() (any, error) {
		return r.solver.SquareCountsFiltered(ctx, c.N, c.Filter)
	})
	if err != nil {
		return nil, dependencyError(ctx, fmt.Sprintf("tallying the squares of the solutions of N=%d that match the filter", c.N), err)
	}
	s := v.(solver.SquareCounts)
	return &s, nil
}
