package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/solver"
)

// Filters (the where argument of listings and counts): checked at the
// edge, then served by the solver's constrained search, whether the board
// is stored or not.

// maxFilterSquares bounds the squares of a filter, both lists together,
// besides 2N a list: more says nothing a shorter filter could not (a
// matching solution has N queens), and the store bounds its filters alike.
const maxFilterSquares = 64

// filterArg checks a where argument for board N: every square on the
// board, at most 2N squares a list and maxFilterSquares in all. nil is
// the zero filter.
func filterArg(n int, where *SolutionFilter) (solver.Filter, error) {
	var f solver.Filter
	if where == nil {
		return f, nil
	}
	for _, list := range []struct {
		name    string
		squares []*SquareInput
		to      *[]solver.Square
	}{{"queens", where.Queens, &f.Queens}, {"empty", where.Empty, &f.Empty}} {
		if len(list.squares) > 2*n {
			return solver.Filter{}, badInput("where.%s names %d squares: at most 2N = %d are allowed for N=%d", list.name, len(list.squares), 2*n, n)
		}
		for _, s := range list.squares {
			*list.to = append(*list.to, solver.Square{Row: s.Row, Col: s.Col})
		}
	}
	if k := len(f.Queens) + len(f.Empty); k > maxFilterSquares {
		return solver.Filter{}, badInput("where names %d squares in queens and empty together: at most %d are allowed", k, maxFilterSquares)
	}
	if err := f.Check(n); err != nil {
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
		r.filterCounts.Add(key, c)
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
