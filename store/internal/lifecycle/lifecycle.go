// Package lifecycle holds the decisions both backends take on the rows
// they read, so that both take them alike: how a board moves through its
// states (plan, chunk writes, finish) and what of it can be read in each.
package lifecycle

import (
	"fmt"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// PlanStep is what PlanBoard does with a board.
type PlanStep int

const (
	// KeepBoard: the board is running or done; nothing changes.
	KeepBoard PlanStep = iota
	// ResumeBoard: the board failed under the same plan; it runs again
	// and its done chunks stay done.
	ResumeBoard
	// StartBoard: the board is new or pending; it runs with the plan and
	// its chunk rows.
	StartBoard
)

// DecidePlan says what PlanBoard does with board b under plan, or
// ECONFLICT for a failed board planned otherwise than before.
func DecidePlan(b store.Board, plan store.BoardPlan) (PlanStep, error) {
	switch b.State {
	case store.Running, store.Done:
		return KeepBoard, nil
	case store.Failed:
		if b.ChunkDepth != plan.ChunkDepth || b.Tasks != plan.Tasks || b.StoresSolutions != plan.StoresSolutions {
			return KeepBoard, nqueens.Errorf(nqueens.ECONFLICT, "N=%d failed under another plan (chunk depth %d, tasks %t, stores solutions %t); it resumes only under that plan",
				plan.N, b.ChunkDepth, b.Tasks, b.StoresSolutions)
		}
		return ResumeBoard, nil
	}
	return StartBoard, nil
}

// CheckFinish says whether board b can be finished now: nil for a running
// board whose chunks are all done, and for a done board (finishing it
// again changes nothing); ECONFLICT otherwise.
func CheckFinish(b store.Board) error {
	switch {
	case b.State == store.Done:
		return nil
	case b.State != store.Running:
		return nqueens.Errorf(nqueens.ECONFLICT, "N=%d is %s; only a running board can finish", b.N, b.State)
	case b.ChunksDone < b.ChunksTotal:
		return nqueens.Errorf(nqueens.ECONFLICT, "N=%d has %d of its %d chunks done; it finishes when all are", b.N, b.ChunksDone, b.ChunksTotal)
	}
	return nil
}

// CheckSums checks what the chunk rows of board b add up to: doneChunks
// done chunk rows and the sums of their counts (nil when the board has no
// chunk, e.g. N=3 planned at depth 3). It returns the board's counts, or
// an EINTERNAL error when the rows disagree with the board's progress or
// the counts do not add up (solver.Counts.Check): FinishBoard then fails
// the board instead of publishing wrong counts.
func CheckSums(b store.Board, doneChunks int, sums *solver.Counts) (solver.Counts, error) {
	var c solver.Counts
	if sums != nil {
		c = *sums
	}
	if doneChunks != b.ChunksTotal {
		return c, nqueens.Errorf(nqueens.EINTERNAL, "N=%d: %d chunk rows are done, the board counts %d of %d", b.N, doneChunks, b.ChunksDone, b.ChunksTotal)
	}
	if c.Total != b.SolutionsDone {
		return c, nqueens.Errorf(nqueens.EINTERNAL, "N=%d: chunk rows sum to %d solutions, the board's progress to %d", b.N, c.Total, b.SolutionsDone)
	}
	if err := c.Check(); err != nil {
		return c, &nqueens.Error{Code: nqueens.EINTERNAL, Message: fmt.Sprintf("N=%d: the chunk counts do not add up", b.N), Err: err}
	}
	return c, nil
}

// PlannedChunks are the chunk rows a plan makes, in chunk order, not done:
// the prefixes of solver.Chunks, or the tasks of solver.Tasks in groups of
// plan.TasksPerChunk (the last group may be smaller).
func PlannedChunks(plan store.BoardPlan) ([]store.ChunkRecord, error) {
	if plan.Tasks {
		tasks, err := solver.Tasks(plan.N)
		if err != nil {
			return nil, nqueens.Errorf(nqueens.EINVALID, "%v", err)
		}
		size := max(plan.TasksPerChunk, 1)
		var out []store.ChunkRecord
		for i := 0; i < len(tasks); i += size {
			out = append(out, store.ChunkRecord{N: plan.N, Index: len(out), Tasks: tasks[i:min(i+size, len(tasks))]})
		}
		return out, nil
	}
	chunks, err := solver.Chunks(plan.N, plan.ChunkDepth)
	if err != nil {
		return nil, nqueens.Errorf(nqueens.EINVALID, "%v", err)
	}
	out := make([]store.ChunkRecord, len(chunks))
	for i, c := range chunks {
		out[i] = store.ChunkRecord{N: plan.N, Index: i, Prefix: c.Prefix}
	}
	return out, nil
}

// CheckChunkTarget checks that the chunk's board, in state with
// storesSolutions, takes the write of a chunk that is not done yet.
func CheckChunkTarget(w store.ChunkWrite, state store.BoardState, storesSolutions bool) error {
	switch {
	case state != store.Running:
		return nqueens.Errorf(nqueens.ECONFLICT, "N=%d is %s; chunks are written while it runs", w.N(), state)
	case storesSolutions && w.Solutions == nil:
		return nqueens.Errorf(nqueens.EINVALID, "N=%d stores its solutions: %v needs them, not only counts", w.N(), w)
	}
	return nil
}

// ChunkNotFound is the error for a write whose chunk is not a row of a
// planned board.
func ChunkNotFound(w store.ChunkWrite) error {
	return nqueens.Errorf(nqueens.ENOTFOUND, "%v is not a chunk of a planned board", w)
}
