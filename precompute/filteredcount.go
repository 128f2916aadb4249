package precompute

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// A filtered count (the solutions of N that a filter matches, and their
// classes) is planned by solver.PlanFilteredCount: PrecomputeCount records
// the count and queues one FilteredChunkArgs job per chunk in the same
// transaction; each job counts its chunk and writes it with its own
// completion, and the write of the last chunk sums them
// (store.WriteFilteredChunk), so no final job is needed. A retried or
// duplicated chunk is written once. The jobs run under the engine's
// JobTimeout and the heartbeat rescue like the boards' chunks.

// PrecomputeCount asks for the count of board n under f to be computed in
// the background and stored, keyed by f.Key(). It returns the count's row:
// asking again for a count that runs or is done changes nothing; a failed
// one resumes, its chunks not written yet queued again (a chunk whose job
// is still on its way out, the moment after it failed the count, is not:
// River drops the duplicate of a running job; ask again).
func (e *Engine[TTx]) PrecomputeCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error) {
	if n < 1 || n > solver.MaxSearchN {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "a filtered count takes N from 1 to %d, got %d", solver.MaxSearchN, n)
	}
	if err := f.Validate(n); err != nil {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "%v", err)
	}
	if f.IsZero() {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "give the filter at least one square; the count of the whole board is the board's precompute")
	}
	return e.precomputeCount(ctx, n, f, nil)
}

// RanksMaxN is the largest board whose rank index PrecomputeRanks counts
// (solver.RankIndexMaxN): the index lists every solution, and N=17's
// 95,815,104 took 8 min 20 s of one core on a loaded machine
// (docs/PERFORMANCE.md).
const RanksMaxN = solver.RankIndexMaxN

// rankChunkPriority is River's priority of the rank index's chunk jobs:
// after the boards' chunks (priority 1), so that the boards asked for
// while an index is counted are not held up by it.
const rankChunkPriority = 2

// PrecomputeRanks asks for the rank index of board n to be computed in
// the background: the count of each of its prefix chunks
// (solver.RankChunkDepth), all solutions and canonical ones, kept as the
// count of the zero filter. A board that keeps counts only is counted by
// tasks that do not follow the lexicographic order; the index's prefix
// sums give the chunk of any rank, within which the solver walks. Asking
// again changes nothing, as for any filtered count.
func (e *Engine[TTx]) PrecomputeRanks(ctx context.Context, n int) (store.FilteredCount, error) {
	if n < 1 || n > RanksMaxN {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "ranks are indexed for N from 1 to %d, got %d", RanksMaxN, n)
	}
	return e.precomputeCount(ctx, n, solver.Filter{}, &river.InsertOpts{Priority: rankChunkPriority})
}

// precomputeCount records the count of n under f and queues its chunks'
// jobs, with opts when not nil (see PrecomputeCount).
func (e *Engine[TTx]) precomputeCount(ctx context.Context, n int, f solver.Filter, opts *river.InsertOpts) (store.FilteredCount, error) {
	plan, err := solver.PlanFilteredCount(n, f)
	if err != nil {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EINVALID, "%v", err)
	}
	f, key := f.Canonical(), f.Key()
	req := store.FilteredCountRequest{N: n, Filter: f, Chunks: len(plan.Chunks)}
	fc, created, err := e.store.RequestFilteredCount(ctx, req, func(ctx context.Context, tx TTx, todo []int) error {
		params := make([]river.InsertManyParams, len(todo))
		for i, idx := range todo {
			params[i] = river.InsertManyParams{Args: FilteredChunkArgs{N: n, Filter: f, Index: idx}, InsertOpts: opts}
		}
		if _, err := e.client.InsertManyTx(ctx, tx, params); err != nil {
			return fmt.Errorf("queueing the %d chunk jobs of the count of N=%d under %q: %w", len(todo), n, key, err)
		}
		return nil
	})
	if err != nil {
		return store.FilteredCount{}, err
	}
	if created {
		e.log.Info("filtered count planned", "n", n, "filter", key, "chunks", fc.ChunksTotal)
	}
	return fc, nil
}

// filteredChunkWorker works FilteredChunkArgs jobs. TDriver is the River
// driver, which river.JobCompleteTx needs.
type filteredChunkWorker[TTx any, TDriver riverdriver.Driver[TTx]] struct {
	river.WorkerDefaults[FilteredChunkArgs]
	e *Engine[TTx]
}

// Work counts the chunk, then writes it and completes the job in one
// transaction. Arguments that do not make a chunk (a wiring mistake) or a
// count that was never asked for cancel the job: retrying cannot mend them.
func (w *filteredChunkWorker[TTx, TDriver]) Work(ctx context.Context, job *river.Job[FilteredChunkArgs]) (err error) {
	e, a := w.e, job.Args
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("filtered count chunk job panicked", "job", a.String(), "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
		// A job cancelled by Stop is not the chunk's fault: it runs again.
		if err != nil && job.Attempt >= job.MaxAttempts && ctx.Err() == nil {
			e.failFilteredCount(a, fmt.Sprintf("%v failed %d times; the last error: %v", a, job.Attempt, err))
		}
	}()
	plan, err := solver.PlanFilteredCount(a.N, a.Filter)
	if err != nil {
		return river.JobCancel(err)
	}
	if a.Index < 0 || a.Index >= len(plan.Chunks) {
		return river.JobCancel(fmt.Errorf("%v: the count has chunks 0 to %d", a, len(plan.Chunks)-1))
	}
	select {
	case e.computing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	counts, err := plan.Chunks[a.Index].CountFilteredContext(ctx, plan.Filter)
	<-e.computing
	if err != nil {
		return err
	}
	write := store.FilteredChunkWrite{N: a.N, Filter: a.Filter, Index: a.Index, Counts: counts}
	fc, err := e.store.WriteFilteredChunk(ctx, write, func(ctx context.Context, tx TTx) error {
		_, err := river.JobCompleteTx[TDriver](ctx, tx, job)
		return err
	})
	switch {
	case err != nil && permanent(err):
		if nqueens.ErrorCode(err) == nqueens.EINVALID {
			e.failFilteredCount(a, fmt.Sprintf("%v cannot be written: %v", a, err))
		}
		return river.JobCancel(err)
	case err != nil:
		return err
	case fc.State == store.Done && fc.ChunksDone == fc.ChunksTotal:
		e.log.Info("filtered count done", "n", a.N, "filter", a.Filter.Key(), "total", fc.Total, "unique", fc.Unique)
	}
	return nil
}

// failFilteredCount records that the count of a's chunk failed, with the
// reason: asking for it again resumes it. It runs after a job's context
// may have ended, so it has its own.
func (e *Engine[TTx]) failFilteredCount(a FilteredChunkArgs, reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.store.FailFilteredCount(ctx, a.N, a.Filter, reason); err != nil {
		e.log.Error("recording a filtered count's failure", "n", a.N, "filter", a.Filter.Key(), "reason", reason, "err", err)
		return
	}
	e.log.Error("filtered count failed; asking for it again resumes it", "n", a.N, "filter", a.Filter.Key(), "reason", reason)
}
