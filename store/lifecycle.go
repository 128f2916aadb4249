package store

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// The decisions PlanBoard and FinishBoard take in both backends, on the
// board row they read under a lock.

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
func DecidePlan(b Board, plan BoardPlan) (PlanStep, error) {
	switch b.State {
	case Running, Done:
		return KeepBoard, nil
	case Failed:
		if b.ChunkDepth != plan.ChunkDepth || b.Tasks != plan.Tasks || b.StoresSolutions != plan.StoresSolutions {
			return KeepBoard, Errorf(ECONFLICT, "N=%d failed under another plan (chunk depth %d, tasks %t, stores solutions %t); it resumes only under that plan",
				plan.N, b.ChunkDepth, b.Tasks, b.StoresSolutions)
		}
		return ResumeBoard, nil
	}
	return StartBoard, nil
}

// PlanOf is the plan board b was planned under, to resume it.
func PlanOf(b Board, solverVersion string) BoardPlan {
	return BoardPlan{N: b.N, ChunkDepth: b.ChunkDepth, Tasks: b.Tasks, StoresSolutions: b.StoresSolutions, SolverVersion: solverVersion}
}

// CheckFinish says whether board b can be finished now: nil for a running
// board whose chunks are all done, and for a done board (finishing it
// again changes nothing); ECONFLICT otherwise.
func CheckFinish(b Board) error {
	switch {
	case b.State == Done:
		return nil
	case b.State != Running:
		return Errorf(ECONFLICT, "N=%d is %s; only a running board can finish", b.N, b.State)
	case b.ChunksDone < b.ChunksTotal:
		return Errorf(ECONFLICT, "N=%d has %d of its %d chunks done; it finishes when all are", b.N, b.ChunksDone, b.ChunksTotal)
	}
	return nil
}

// CheckSums checks what the chunk rows of board b add up to: doneChunks
// done chunk rows and the sums of their counts (nil when the board has no
// chunk, e.g. N=3 planned at depth 3). It returns the board's counts, or
// an EINTERNAL error when the rows disagree with the board's progress or
// the counts do not add up (solver.Counts.Check): FinishBoard then fails
// the board instead of publishing wrong counts.
func CheckSums(b Board, doneChunks int, sums *solver.Counts) (solver.Counts, error) {
	var c solver.Counts
	if sums != nil {
		c = *sums
	}
	if doneChunks != b.ChunksTotal {
		return c, Errorf(EINTERNAL, "N=%d: %d chunk rows are done, the board counts %d of %d", b.N, doneChunks, b.ChunksDone, b.ChunksTotal)
	}
	if c.Total != b.SolutionsDone {
		return c, Errorf(EINTERNAL, "N=%d: chunk rows sum to %d solutions, the board's progress to %d", b.N, c.Total, b.SolutionsDone)
	}
	if err := c.Check(); err != nil {
		return c, &Error{Code: EINTERNAL, Message: fmt.Sprintf("N=%d: the chunk counts do not add up", b.N), Err: err}
	}
	return c, nil
}
