package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
)

// Filters (the where argument of listings and counts): checked at the
// edge, then served by the solver's constrained search, whether the board
// is stored or not.

// filterArg turns a where argument for board N into a filter, checked as
// every filter is (solver.Filter.Validate: on the board, at most 2N
// squares a list and solver.MaxFilterSquares in all). nil is the zero
// filter.
func filterArg(n int, where *SolutionFilter) (solver.Filter, error) {
	var f solver.Filter
	if where == nil {
		return f, nil
	}
	for _, s := range where.Queens {
		f.Queens = append(f.Queens, solver.Square{Row: s.Row, Col: s.Col})
	}
	for _, s := range where.Empty {
		f.Empty = append(f.Empty, solver.Square{Row: s.Row, Col: s.Col})
	}
	if err := f.Validate(n); err != nil {
		return solver.Filter{}, badInput("where.%v", err)
	}
	return f, nil
}

// filterCountKey names the counts of a filtered board in the cache and in
// an operation.
type filterCountKey struct {
	n      int
	filter string
}

func filterCountCost(k filterCountKey, _ solver.Counts) int64 { return int64(len(k.filter)) + 160 }

// filteredCounts counts the solutions of N that f matches and the classes
// with a member that matches, with the solver on the request's budget,
// once per operation and through the count cache.
func (r *Resolver) filteredCounts(ctx context.Context, n int, f solver.Filter) (solver.Counts, error) {
	key := filterCountKey{n: n, filter: f.String()}
	if r.filterCounts != nil {
		c, ok := r.filterCounts.Get(key)
		r.cacheLookup("filterCount", ok)
		if ok {
			return c, nil
		}
	}
	v, err := r.solver.Once(ctx, key, func() (any, error) {
		return r.solver.CountFiltered(ctx, n, f)
	})
	if err != nil {
		return solver.Counts{}, dependencyError(ctx, fmt.Sprintf("counting the solutions of N=%d under a filter", n), err)
	}
	c := v.(solver.Counts)
	if r.filterCounts != nil {
		r.filterCounts.AddFor(solverpool.ClientOf(ctx), key, c)
	}
	return c, nil
}

// filteredCountResult answers count(n, where) for a non-zero filter: the
// solver's counts, or, when they could not be counted (the budget ran
// out), null counts with the error on the field, so that state and board
// are still answered.
func (r *Resolver) filteredCountResult(ctx context.Context, b *Board, f solver.Filter) (*CountResult, error) {
	res := &CountResult{N: b.N, Board: b, Filter: f}
	if c, ok := r.storedFilteredCounts(ctx, b.N, f); ok {
		src := SourceStore
		res.Total, res.Unique, res.Source = bigPtr(c.Total), bigPtr(c.Unique), &src
		return res, nil
	}
	c, err := r.filteredCounts(ctx, b.N, f)
	var e *apierror.Error
	switch {
	case errors.As(err, &e) && e.Code == apierror.Timeout:
		markVolatile(ctx)
		hint := *e
		hint.Message += fmt.Sprintf("; an admin can have it counted in the background and stored with the mutation precomputeCount(n: %d, where: …), after which this count answers from the store", b.N)
		graphql.AddError(ctx, &hint)
		return res, nil
	case err != nil:
		return nil, err
	}
	src := SourceSolver
	res.Total, res.Unique, res.Source = bigPtr(c.Total), bigPtr(c.Unique), &src
	return res, nil
}
