package graph

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Ranks of boards not in the store: a board that keeps counts only has a
// rank index (the count of each of its prefix chunks, solver.RankChunkDepth,
// kept as the count of the zero filter), whose prefix sums give the chunk
// of any rank; the solver walks within that chunk, on the client's share
// of the solver and within the request's budget. Without a counted index,
// ranks come from the solver's walk from the first solution, for small N.

// rankIndex is the rank index of one N: its chunks, in lexicographic
// order, and the solutions and canonical solutions before each (one more
// entry than chunks: the last is the board's total).
type rankIndex struct {
	n            int
	chunks       []solver.Chunk
	before       []uint64
	uniqueBefore []uint64
}

// rankIndexes keeps the indexes read from the store, by N. An index is
// a fact about N, the same in any store, so it is read once per process;
// at most one per N up to precompute's limit, 47,732 chunks at N=19
// (about 3 MB).
type rankIndexes struct {
	mu sync.Mutex
	by map[int]*rankIndex
}

// rankIndexOf returns the counted rank index of N, ENOTFOUND (with what is
// missing) when the store has none that is done.
func (r *Resolver) rankIndexOf(ctx context.Context, n int) (*rankIndex, error) {
	r.indexes.mu.Lock()
	ix := r.indexes.by[n]
	r.indexes.mu.Unlock()
	if ix != nil {
		return ix, nil
	}
	counts, err := r.boards.FilteredCountChunks(ctx, n, solver.Filter{})
	if err != nil {
		return nil, err
	}
	plan, err := solver.PlanFilteredCount(n, solver.Filter{})
	if err != nil {
		return nil, err
	}
	if len(plan.Chunks) != len(counts) {
		return nil, nqueens.Errorf(nqueens.EINTERNAL, "the rank index of N=%d has %d chunks, the solver plans %d", n, len(counts), len(plan.Chunks))
	}
	ix = newRankIndex(n, plan.Chunks, counts)
	r.indexes.mu.Lock()
	if r.indexes.by == nil {
		r.indexes.by = map[int]*rankIndex{}
	}
	r.indexes.by[n] = ix
	r.indexes.mu.Unlock()
	return ix, nil
}

// newRankIndex is the index of N's chunks with these counts, by index.
func newRankIndex(n int, chunks []solver.Chunk, counts []solver.Counts) *rankIndex {
	ix := &rankIndex{n: n, chunks: chunks, before: make([]uint64, len(counts)+1), uniqueBefore: make([]uint64, len(counts)+1)}
	for i, c := range counts {
		ix.before[i+1] = ix.before[i] + c.Total
		ix.uniqueBefore[i+1] = ix.uniqueBefore[i] + c.Unique
	}
	return ix
}

// sums returns the prefix sums of the listing (unique: of canonical
// solutions).
func (ix *rankIndex) sums(unique bool) []uint64 {
	if unique {
		return ix.uniqueBefore
	}
	return ix.before
}

// indexedListing is the listing of a board not in the store: pages from
// the solver; solutions by rank and ranks from the rank index when it is
// counted, else from the solver's walk from the first solution (for N up
// to the pool's RankWalkMaxN; past it the error says what is missing).
type indexedListing struct{ r *Resolver }

func (l indexedListing) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	return l.r.solver.Page(ctx, req)
}

// index returns the counted rank index of N; a nil index and no error
// when the solver is to rank instead: N is small enough to walk from the
// first solution, or the board is not one kept as counts only (the
// solver's error then says what it can do). An index on its way, or a
// counts-only board without one, is an error that says what is missing.
func (l indexedListing) index(ctx context.Context, n int) (*rankIndex, error) {
	ix, err := l.r.rankIndexOf(ctx, n)
	switch {
	case err == nil:
		return ix, nil
	case n <= l.r.opts.RankWalkMaxN:
		return nil, nil
	case nqueens.ErrorCode(err) != nqueens.ENOTFOUND:
		return nil, err
	}
	if fc, err := l.r.boards.FilteredCount(ctx, n, solver.Filter{}); err == nil {
		return nil, missingIndex(fc)
	}
	if b, err := l.r.boards.Board(ctx, n); err == nil && !b.StoresSolutions && b.State != store.Pending {
		return nil, countsOnlyUnranked(b)
	}
	return nil, nil
}

// countsOnlyUnranked is the error of a rank of board b, kept with its
// counts only, whose rank index was never asked for: what it waits for.
func countsOnlyUnranked(b store.Board) error {
	var msg string
	switch {
	case b.N > solver.RankIndexMaxN:
		msg = fmt.Sprintf("N=%d keeps counts only and has no rank index (boards have one up to N=%d): its ranks are not known", b.N, solver.RankIndexMaxN)
	case b.State == store.Running:
		msg = fmt.Sprintf("N=%d is being counted: %d of %d chunks done; its rank index is counted after it, and ranks need that index", b.N, b.ChunksDone, b.ChunksTotal)
	case b.State == store.Failed:
		msg = fmt.Sprintf("the count of N=%d failed (%s); precompute it again: its rank index is counted after it, and ranks need that index", b.N, b.LastError)
	default:
		msg = fmt.Sprintf("N=%d was counted before boards had rank indexes; precompute it again (precompute(n: %d)) to have its index counted", b.N, b.N)
	}
	return &apierror.Error{Code: apierror.Unavailable, Err: solverpool.ErrNoWalk, Message: msg}
}

// missingIndex is the error of a rank of a board whose rank index fc is
// not counted yet: what is missing, and how far its count is.
func missingIndex(fc store.FilteredCount) error {
	const why = "ranks of a board kept with its counts only come from its rank index, the counts of its chunks in lexicographic order"
	msg := fmt.Sprintf("the rank index of N=%d is being counted: %d of %d chunks done; %s, and need all of them", fc.N, fc.ChunksDone, fc.ChunksTotal, why)
	if fc.State == store.Failed {
		msg = fmt.Sprintf("the rank index of N=%d failed with %d of %d chunks counted (%s); %s, and precomputing the board again resumes it", fc.N, fc.ChunksDone, fc.ChunksTotal, fc.LastError, why)
	}
	return &apierror.Error{Code: apierror.Unavailable, Err: solverpool.ErrNoWalk, Message: msg}
}

// SolutionAt finds the chunk of rank by the index's prefix sums and walks
// to it within the chunk.
func (l indexedListing) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error) {
	ix, err := l.index(ctx, n)
	if err != nil || ix == nil {
		if err != nil {
			return store.Solution{}, err
		}
		return l.r.solver.SolutionAt(ctx, n, rank, unique)
	}
	sums := ix.sums(unique)
	if rank == 0 || rank > sums[len(sums)-1] {
		return store.Solution{}, nqueens.Errorf(nqueens.ENOTFOUND, "the listing of N=%d (unique %t) has %d items", n, unique, sums[len(sums)-1])
	}
	// The first chunk whose sum through it reaches rank holds it.
	i := sort.Search(len(ix.chunks), func(i int) bool { return sums[i+1] >= rank })
	found, at, err := solver.Nth(rank-sums[i], func(visit func(solver.Placement) bool) error {
		return l.r.solver.WalkChunk(ctx, fmt.Sprintf("finding solution #%d of N=%d in its chunk", rank, n), ix.chunks[i], unique, visit)
	})
	switch {
	case err != nil:
		return store.Solution{}, err
	case found == nil:
		return store.Solution{}, nqueens.Errorf(nqueens.EINTERNAL, "the rank index of N=%d counts %d items in chunk %v, the solver %d", n, sums[i+1]-sums[i], ix.chunks[i].Prefix, at)
	}
	return store.Solution{N: n, Placement: found, Rank: rank}, nil
}

// Rank adds the items of the chunks before p's to the items of its chunk
// before it.
func (l indexedListing) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	ix, err := l.index(ctx, n)
	if err != nil || ix == nil {
		if err != nil {
			return 0, err
		}
		return l.r.solver.Rank(ctx, n, p, unique)
	}
	depth := len(ix.chunks[0].Prefix)
	i, ok := slices.BinarySearchFunc(ix.chunks, p[:depth], func(c solver.Chunk, prefix solver.Placement) int {
		return c.Prefix.Compare(prefix)
	})
	if !ok {
		return 0, nqueens.Errorf(nqueens.ENOTFOUND, "%v is not a solution of N=%d", p, n)
	}
	var within uint64
	reached := false
	err = l.r.solver.WalkChunk(ctx, fmt.Sprintf("ranking a solution of N=%d in its chunk", n), ix.chunks[i], unique, func(q solver.Placement) bool {
		if q.Compare(p) >= 0 {
			reached = true
			return false
		}
		within++
		return true
	})
	switch {
	case err != nil:
		return 0, err
	case !reached:
		return 0, nqueens.Errorf(nqueens.ENOTFOUND, "%v is not a solution of N=%d", p, n)
	}
	return ix.sums(unique)[i] + within + 1, nil
}

// ranksInIndex returns the ranks of page's placements, ascending
// solutions of N (unique: canonical ones), through N's rank index: one
// walk of each chunk they fall in, up to the last of them there.
func (r *Resolver) ranksInIndex(ctx context.Context, ix *rankIndex, unique bool, page []solver.Placement) ([]uint64, error) {
	ranks := make([]uint64, len(page))
	sums := ix.sums(unique)
	depth := len(ix.chunks[0].Prefix)
	for i := 0; i < len(page); {
		c, ok := slices.BinarySearchFunc(ix.chunks, page[i][:depth], func(c solver.Chunk, prefix solver.Placement) int {
			return c.Prefix.Compare(prefix)
		})
		if !ok {
			return nil, internal(fmt.Errorf("%v has no chunk in the rank index of N=%d", page[i], ix.n))
		}
		// The page's items in this chunk: page[i:j].
		j := i
		for j < len(page) && page[j][:depth].Compare(ix.chunks[c].Prefix) == 0 {
			j++
		}
		k, next := sums[c], i
		err := r.solver.WalkChunk(ctx, fmt.Sprintf("ranking solutions of N=%d in their chunk", ix.n), ix.chunks[c], unique, func(q solver.Placement) bool {
			k++
			if q.Compare(page[next]) == 0 {
				ranks[next] = k
				next++
			}
			return next < j
		})
		switch {
		case err != nil:
			return nil, err
		case next < j:
			return nil, internal(fmt.Errorf("the walk of chunk %v of N=%d (unique %t) did not pass %v", ix.chunks[c].Prefix, ix.n, unique, page[next]))
		}
		i = j
	}
	return ranks, nil
}
