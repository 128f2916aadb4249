package precompute

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/nqueens/nqueens/store"
)

// boardWorker works board jobs: it plans the board and queues its chunk
// jobs in the plan's transaction. A board with no chunk left to do (none
// in its plan, or all of them done when a failed board resumes) it closes
// at once.
type boardWorker[TTx any] struct {
	river.WorkerDefaults[BoardArgs]
	e *Engine[TTx]
}

func (w *boardWorker[TTx]) Work(ctx context.Context, job *river.Job[BoardArgs]) error {
	e, n := w.e, job.Args.N
	p := plan(job.Args)
	if b, err := e.store.Board(ctx, n); err == nil && b.State == store.Failed {
		// A failed board resumes under the plan it had: its done chunks
		// are kept.
		p = store.PlanOf(b, SolverVersion)
	}
	b, claimed, err := e.PlanBoard(ctx, p)
	if err != nil {
		if permanent(err) {
			return river.JobCancel(err)
		}
		return err
	}
	if claimed {
		e.changed(n)
		e.log.Info("board planned", "n", n, "stores_solutions", b.StoresSolutions, "tasks", b.Tasks,
			"chunk_depth", b.ChunkDepth, "chunks", b.ChunksTotal, "to_do", b.ChunksTotal-b.ChunksDone)
	}
	if b.State == store.Running && b.ChunksDone == b.ChunksTotal {
		return e.finish(ctx, n)
	}
	return nil
}

// PlanBoard plans a board as its board job does: it claims the board
// under p (store.Writer.PlanBoard) and queues a chunk job for each of its
// chunks not done yet in the same transaction, for the workers of any
// process over the database to work. claimed is false for a board that
// runs or is done already (nothing is queued).
func (e *Engine[TTx]) PlanBoard(ctx context.Context, p store.BoardPlan) (b store.Board, claimed bool, err error) {
	return e.store.PlanBoard(ctx, p, func(ctx context.Context, tx TTx, _ store.Board, todo []store.ChunkRecord) error {
		return e.queueChunks(ctx, tx, todo)
	})
}

// queueChunks inserts one chunk job per chunk in tx, in chunk order: River
// hands out jobs of equal priority in the order they were inserted, so
// chunks are mostly written in key order, which keeps the solutions'
// indexes compact (docs/PERFORMANCE.md, "Bytes per stored solution").
func (e *Engine[TTx]) queueChunks(ctx context.Context, tx TTx, todo []store.ChunkRecord) error {
	if len(todo) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(todo))
	for i, c := range todo {
		params[i] = river.InsertManyParams{Args: ChunkArgs{N: c.N, Index: c.Index, Prefix: c.Prefix, Tasks: c.Tasks}}
	}
	if _, err := e.client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("queueing the %d chunk jobs of N=%d: %w", len(todo), todo[0].N, err)
	}
	return nil
}
