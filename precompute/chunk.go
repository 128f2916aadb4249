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

// chunkWorker works chunk jobs. TDriver is the River driver, which
// river.JobCompleteTx needs to complete the job in the store's
// transaction.
type chunkWorker[TTx any, TDriver riverdriver.Driver[TTx]] struct {
	river.WorkerDefaults[ChunkArgs]
	e *Engine[TTx]
}

// Timeout implements river.Worker: a chunk expected to run long may (see
// chunkTimeout). River's rescuer reads it too, and leaves a chunk that
// runs within it alone.
func (w *chunkWorker[TTx, TDriver]) Timeout(job *river.Job[ChunkArgs]) time.Duration {
	return chunkTimeout(job.Args, w.e.cfg.JobTimeout)
}

// Work computes the chunk and writes it. A chunk that fails on its last
// attempt fails its board, with the error: never silently.
func (w *chunkWorker[TTx, TDriver]) Work(ctx context.Context, job *river.Job[ChunkArgs]) (err error) {
	a := job.Args
	defer w.e.running.enter(a.N)()
	defer func() {
		if r := recover(); r != nil {
			w.e.log.Error("chunk job panicked", "n", a.N, "index", a.Index, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
		// A job cancelled by Stop is not the chunk's fault: it runs again.
		if err != nil && job.Attempt >= job.MaxAttempts && ctx.Err() == nil {
			w.e.failBoard(a.N, fmt.Sprintf("%v failed %d times; the last error: %v", a, job.Attempt, err))
		}
	}()
	return w.work(ctx, job)
}

// work computes the chunk, then writes it and completes the job in one
// transaction. The store knows whether the chunk is done already (a
// duplicate or a retry after a commit: nothing is written, the job
// completes) and whether its board still runs (a failed board refuses the
// write: the job is cancelled, and resuming the board queues the chunk
// again).
func (w *chunkWorker[TTx, TDriver]) work(ctx context.Context, job *river.Job[ChunkArgs]) error {
	e, a := w.e, job.Args
	select {
	case e.computing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	write, err := compute(ctx, a)
	<-e.computing
	if err != nil {
		return err
	}
	last, err := e.store.WriteChunk(ctx, write, func(ctx context.Context, tx TTx) error {
		_, err := river.JobCompleteTx[TDriver](ctx, tx, job)
		return err
	})
	switch {
	case err != nil && permanent(err):
		if nqueens.ErrorCode(err) != nqueens.ECONFLICT {
			e.failBoard(a.N, fmt.Sprintf("%v cannot be written: %v", a, err))
		}
		return river.JobCancel(err)
	case err != nil:
		return err
	case last:
		// The job is complete, with the chunk. Should this fail, or the
		// process die first, the sweep closes the board (Engine.sweep).
		if err := e.finish(ctx, a.N); err != nil {
			e.log.Warn("closing a board after its last chunk; the sweep will", "n", a.N, "err", err)
		}
	}
	return nil
}

// compute computes a chunk: the counts of a task, or the solutions of a
// prefix, listed in memory before the store's transaction begins, so that
// the transaction (on SQLite, the one write connection) is held for the
// writes only.
func compute(ctx context.Context, a ChunkArgs) (store.ChunkWrite, error) {
	if len(a.Tasks) > 0 {
		var sum solver.Counts
		for _, t := range a.Tasks {
			counts, err := solver.CountTask(ctx, t)
			if err != nil {
				return store.ChunkWrite{}, err
			}
			sum.Add(counts)
		}
		return store.ChunkWrite{Tasks: a.Tasks, Counts: sum}, nil
	}
	c := solver.Chunk{N: a.N, Prefix: a.Prefix}
	sols := listSolutions(c)
	return store.ChunkWrite{Chunk: c, Solutions: sols.All()}, ctx.Err()
}
