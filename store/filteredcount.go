package store

import (
	"context"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// FilteredCount is the stored count of the solutions of N that a filter
// matches, computed in chunks by the precompute: Counts of
// solver.CountFiltered, once Done.
type FilteredCount struct {
	N int
	// Filter is the filter's canonical text, solver.Filter.Key.
	Filter string
	// State is Running while chunks are counted, Done once all are,
	// Failed when a chunk was given up (LastError says why).
	State     BoardState
	LastError string
	// Total and Unique are the counts, 0 until Done.
	Total, Unique uint64
	ChunksTotal   int
	ChunksDone    int
	RequestedAt   time.Time
	// FinishedAt is when the last chunk was written; zero until Done.
	FinishedAt time.Time
}

// FilteredCountRequest asks for the count of N under Filter in Chunks
// chunks, numbered 0 to Chunks-1. The store keeps it by Filter.Key().
type FilteredCountRequest struct {
	N      int
	Filter solver.Filter
	Chunks int
}

// FilteredChunkWrite is the count of one chunk of a filtered count: the
// Total and Unique of solver.Chunk.CountFiltered.
type FilteredChunkWrite struct {
	N      int
	Filter solver.Filter
	Index  int
	Counts solver.Counts
}

// checkCountFilter checks the filter of a filtered count on board N: a
// checked filter (solver.Filter.Check). The zero filter's count is the
// rank index of a board that keeps counts only: its chunks' counts in
// lexicographic order.
func checkCountFilter(n int, f solver.Filter) error {
	return checkFilter(n, f)
}

func (c checked[TTx]) RequestFilteredCount(ctx context.Context, req FilteredCountRequest, onCreate FilteredCountTxFunc[TTx]) (_ FilteredCount, _ bool, err error) {
	defer c.end("RequestFilteredCount", time.Now(), &err)
	if err := checkN(req.N); err != nil {
		return FilteredCount{}, false, err
	}
	if err := checkCountFilter(req.N, req.Filter); err != nil {
		return FilteredCount{}, false, err
	}
	if req.Chunks < 1 {
		return FilteredCount{}, false, nqueens.Errorf(nqueens.EINVALID, "a filtered count has at least 1 chunk, got %d", req.Chunks)
	}
	fc, created, err := c.s.RequestFilteredCount(ctx, req, onCreate)
	return fc, created, c.err(err)
}

func (c checked[TTx]) WriteFilteredChunk(ctx context.Context, w FilteredChunkWrite, inTx TxFunc[TTx]) (_ FilteredCount, err error) {
	defer c.end("WriteFilteredChunk", time.Now(), &err)
	if err := checkN(w.N); err != nil {
		return FilteredCount{}, err
	}
	if err := checkCountFilter(w.N, w.Filter); err != nil {
		return FilteredCount{}, err
	}
	if w.Index < 0 {
		return FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "a chunk index is at least 0, got %d", w.Index)
	}
	if w.Counts.Unique > w.Counts.Total {
		return FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "a chunk counts at most as many classes as solutions, got %d classes of %d", w.Counts.Unique, w.Counts.Total)
	}
	fc, err := c.s.WriteFilteredChunk(ctx, w, inTx)
	return fc, c.err(err)
}

func (c checked[TTx]) FailFilteredCount(ctx context.Context, n int, f solver.Filter, reason string) (_ FilteredCount, err error) {
	defer c.end("FailFilteredCount", time.Now(), &err)
	if err := checkN(n); err != nil {
		return FilteredCount{}, err
	}
	if err := checkCountFilter(n, f); err != nil {
		return FilteredCount{}, err
	}
	fc, err := c.s.FailFilteredCount(ctx, n, f, reason)
	return fc, c.err(err)
}

func (c checked[TTx]) FilteredCount(ctx context.Context, n int, f solver.Filter) (_ FilteredCount, err error) {
	defer c.end("FilteredCount", time.Now(), &err)
	if err := checkN(n); err != nil {
		return FilteredCount{}, err
	}
	if err := checkCountFilter(n, f); err != nil {
		return FilteredCount{}, err
	}
	fc, err := c.s.FilteredCount(ctx, n, f)
	return fc, c.err(err)
}

func (c checked[TTx]) FilteredCountChunks(ctx context.Context, n int, f solver.Filter) (_ []solver.Counts, err error) {
	defer c.end("FilteredCountChunks", time.Now(), &err)
	if err := checkN(n); err != nil {
		return nil, err
	}
	if err := checkCountFilter(n, f); err != nil {
		return nil, err
	}
	out, err := c.s.FilteredCountChunks(ctx, n, f)
	return out, c.err(err)
}
