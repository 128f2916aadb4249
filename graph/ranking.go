package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Ranks: a solution's place in its listing, from the rank cache, the
// store or a walk of the solver's listing, and solutions by rank.

// rankOf returns the rank of p in the listing of N (unique: among its
// canonical solutions), through the rank cache.
func (r *Resolver) rankOf(ctx context.Context, src Listing, n int, unique bool, p solver.Placement) (uint64, error) {
	var key rankKey
	if r.ranks != nil {
		key = rankKey{n: n, unique: unique, placement: string(p.Bytes())}
		rank, ok := r.ranks.Get(key)
		r.cacheLookup("rank", ok)
		if ok {
			return rank, nil
		}
	}
	v, err := r.solver.Once(ctx, rankKey{n: n, unique: unique, placement: string(p.Bytes())}, func() (any, error) {
		return src.Rank(ctx, n, p, unique)
	})
	if err != nil {
		return 0, dependencyError(ctx, fmt.Sprintf("ranking a solution of N=%d", n), err)
	}
	rank := v.(uint64)
	if r.ranks != nil {
		r.ranks.AddFor(solverpool.ClientOf(ctx), key, rank)
	}
	return rank, nil
}

// ranksOf returns the ranks of page's placements, ascending items of the
// listing of N (unique: of its canonical solutions): one walk of the
// solver's listing up to the last of them, or one lookup each in the
// store.
func (r *Resolver) ranksOf(ctx context.Context, src Listing, tag Source, n int, unique bool, page []solver.Placement) ([]uint64, error) {
	if tag == SourceSolver {
		if ix, err := r.rankIndexOf(ctx, n); err == nil {
			return r.ranksInIndex(ctx, ix, unique, page)
		}
	}
	ranks := make([]uint64, len(page))
	if tag != SourceSolver {
		for i, p := range page {
			rank, err := r.rankOf(ctx, src, n, unique, p)
			if err != nil {
				return nil, err
			}
			ranks[i] = rank
		}
		return ranks, nil
	}
	var k uint64
	i := 0
	err := r.solver.Walk(ctx, fmt.Sprintf("ranking solutions of N=%d with the solver", n), n, unique, func(q solver.Placement) bool {
		k++
		if q.Compare(page[i]) == 0 {
			ranks[i] = k
			i++
		}
		return i < len(page)
	})
	switch {
	case err != nil:
		return nil, err
	case i < len(page):
		return nil, internal(fmt.Errorf("the walk of N=%d (unique %t) did not pass %v", n, unique, page[i]))
	}
	return ranks, nil
}

// solutionAt returns solution #rank of a board's listing (unique: of its
// canonical solutions), once per operation.
func (r *Resolver) solutionAt(ctx context.Context, st store.Board, unique bool, rank uint64) (solver.Placement, error) {
	src, tag := r.source(st)
	type atKey struct {
		source Source
		n      int
		unique bool
		rank   uint64
	}
	v, err := r.solver.Once(ctx, atKey{tag, st.N, unique, rank}, func() (any, error) {
		sol, err := src.SolutionAt(ctx, st.N, rank, unique)
		return sol.Placement, err
	})
	if err != nil {
		return nil, err
	}
	return v.(solver.Placement), nil
}

// rank resolves Solution.rank and Solution.uniqueRank (unique): nil when
// not canonical (unique) or when the solver may not walk a board that
// large.
func (r *Resolver) rank(ctx context.Context, s *Solution, unique bool) (*BigInt, error) {
	if unique && !solver.IsCanonical(s.p) {
		return nil, nil
	}
	var (
		rank uint64
		err  error
	)
	if s.page != nil && s.page.unique == unique {
		rank, err = s.page.at(ctx, s.offset)
	} else {
		var st store.Board
		if st, err = r.status(ctx, s.N); err != nil {
			return nil, err
		}
		src, _ := r.source(st)
		rank, err = r.rankOf(ctx, src, s.N, unique, s.p)
	}
	if errors.Is(err, solverpool.ErrNoWalk) {
		markVolatile(ctx)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return bigPtr(rank), nil
}
