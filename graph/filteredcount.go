package graph

import (
	"context"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Counts under filters kept in the store (the precomputeCount mutation):
// count(n, where) reads them before it spends the request's solver time.

// filteredCountModel is the GraphQL FilteredCount of a stored count.
func filteredCountModel(fc store.FilteredCount) *FilteredCount {
	out := &FilteredCount{N: fc.N, Filter: fc.Filter, State: fc.State, ChunksDone: fc.ChunksDone,
		ChunksTotal: fc.ChunksTotal, RequestedAt: fc.RequestedAt}
	if fc.LastError != "" {
		reason := fc.LastError
		out.Error = &reason
	}
	if fc.State == store.Done {
		out.Total, out.Unique = bigPtr(fc.Total), bigPtr(fc.Unique)
		finished := fc.FinishedAt
		out.FinishedAt = &finished
	}
	return out
}

// storedFilteredCounts returns the stored, done count of N under f, and
// whether there is one. A store that cannot answer (no row, down) is no
// answer: the solver then counts, as without a store.
func (r *Resolver) storedFilteredCounts(ctx context.Context, n int, f solver.Filter) (solver.Counts, bool) {
	if r.opts.Boards == nil {
		return solver.Counts{}, false
	}
	fc, err := r.opts.Boards.FilteredCount(ctx, n, f)
	if err != nil || fc.State != store.Done {
		return solver.Counts{}, false
	}
	return solver.Counts{Total: fc.Total, Unique: fc.Unique}, true
}
