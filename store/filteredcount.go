package store

import (
	"context"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// FilteredCount is the stored count of the solutions of N that a filter
// matches (DESIGN: counts under constraints), computed in chunks by the
// precompute: Counts of solver.CountFiltered, once Done.
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

// FilteredCountRequest asks for the count of N under Filter (its
// canonical text, solver.Filter.Key) in Chunks chunks, numbered 0 to
// Chunks-1.
type FilteredCountRequest struct {
	N      int
	Filter string
	Chunks int
}

// FilteredChunkWrite is the count of one chunk of a filtered count: the
// Total and Unique of solver.Chunk.CountFiltered.
type FilteredChunkWrite struct {
	N      int
	Filter string
	Index  int
	Counts solver.Counts
}

// FilteredCountTxFunc runs in the transaction of a RequestFilteredCount
// call that creates the count or resumes a failed one, with the indexes of
// the chunks to count (those not written yet).
type FilteredCountTxFunc func(ctx context.Context, tx any, todo []int) error

// FilteredCounts keeps the counts under filters. Both backends implement
// it (store.Store embeds it), as store/storetest checks.
type FilteredCounts interface {
	// RequestFilteredCount records that req.N under req.Filter be counted
	// in req.Chunks chunks: a running row, then onCreate (if not nil) in
	// the same transaction with every chunk index, for the job system to
	// queue them. It is idempotent: a running or done count is returned
	// unchanged (created false) and onCreate does not run. A failed one
	// resumes: running again, onCreate with the chunks not written yet
	// (created true). One asked for with another number of chunks is
	// nqueens.ECONFLICT.
	RequestFilteredCount(ctx context.Context, req FilteredCountRequest, onCreate FilteredCountTxFunc) (c FilteredCount, created bool, err error)
	// WriteFilteredChunk records the count of one chunk, then inTx (if not
	// nil) in the same transaction. A chunk already written writes nothing
	// (inTx still runs): a retried or duplicated job counts once. The
	// write of the last chunk sums the chunks into the count and marks it
	// done, in its transaction. nqueens.ENOTFOUND when the count was never asked
	// for.
	WriteFilteredChunk(ctx context.Context, w FilteredChunkWrite, inTx TxFunc) (FilteredCount, error)
	// FailFilteredCount marks a running count failed, with the reason
	// (nqueens.ECONFLICT for a done one, nqueens.ENOTFOUND for one never asked for); a
	// failed one stays as it is. RequestFilteredCount resumes it.
	FailFilteredCount(ctx context.Context, n int, filter, reason string) (FilteredCount, error)
	// FilteredCount returns the count of N under filter (canonical text):
	// nqueens.ENOTFOUND when it was never asked for.
	FilteredCount(ctx context.Context, n int, filter string) (FilteredCount, error)
}

// checkFilterKey checks that filter is the canonical text of a filter of
// board N.
func checkFilterKey(n int, filter string) error {
	f, err := solver.ParseFilter(filter)
	if err != nil {
		return nqueens.Errorf(nqueens.EINVALID, "%v", err)
	}
	if err := f.Check(n); err != nil {
		return nqueens.Errorf(nqueens.EINVALID, "%v", err)
	}
	if f.IsZero() {
		return nqueens.Errorf(nqueens.EINVALID, "a filtered count needs a filter with at least one square; the board's own counts are the unfiltered ones")
	}
	if key := f.Key(); key != filter {
		return nqueens.Errorf(nqueens.EINVALID, "the filter %q is not in canonical form: write it as %q (squares sorted by row then column, each once)", filter, key)
	}
	return nil
}

func (c checked) RequestFilteredCount(ctx context.Context, req FilteredCountRequest, onCreate FilteredCountTxFunc) (FilteredCount, bool, error) {
	if err := checkN(req.N); err != nil {
		return FilteredCount{}, false, err
	}
	if err := checkFilterKey(req.N, req.Filter); err != nil {
		return FilteredCount{}, false, err
	}
	if req.Chunks < 1 {
		return FilteredCount{}, false, nqueens.Errorf(nqueens.EINVALID, "a filtered count has at least 1 chunk, got %d", req.Chunks)
	}
	fc, created, err := c.s.RequestFilteredCount(ctx, req, onCreate)
	return fc, created, c.err(err)
}

func (c checked) WriteFilteredChunk(ctx context.Context, w FilteredChunkWrite, inTx TxFunc) (FilteredCount, error) {
	if err := checkN(w.N); err != nil {
		return FilteredCount{}, err
	}
	if err := checkFilterKey(w.N, w.Filter); err != nil {
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

func (c checked) FailFilteredCount(ctx context.Context, n int, filter, reason string) (FilteredCount, error) {
	if err := checkN(n); err != nil {
		return FilteredCount{}, err
	}
	if err := checkFilterKey(n, filter); err != nil {
		return FilteredCount{}, err
	}
	fc, err := c.s.FailFilteredCount(ctx, n, filter, reason)
	return fc, c.err(err)
}

func (c checked) FilteredCount(ctx context.Context, n int, filter string) (FilteredCount, error) {
	if err := checkN(n); err != nil {
		return FilteredCount{}, err
	}
	if err := checkFilterKey(n, filter); err != nil {
		return FilteredCount{}, err
	}
	fc, err := c.s.FilteredCount(ctx, n, filter)
	return fc, c.err(err)
}
