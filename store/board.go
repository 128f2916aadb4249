package store

import (
	"time"

	"github.com/nqueens/nqueens/solver"
)

// BoardState is where a board is in its life: pending → running → done,
// or failed (and back to running when planned again).
type BoardState string

// The four states of a board row; they are also the values of boards.state
// in SQL.
const (
	Pending BoardState = "pending" // requested, not yet planned
	Running BoardState = "running" // planned: chunks are being computed
	Done    BoardState = "done"    // every chunk written, counts final
	Failed  BoardState = "failed"  // given up; LastError says why
)

// Unknown is the state of a board the store has no row for (Board says
// nqueens.ENOTFOUND): nothing was ever asked of it. It is the zero value, so
// Board{N: n} is such a board; the store never writes it.
const Unknown BoardState = ""

// Board is the row of one board size N: what has been computed, how far,
// and how long it took.
type Board struct {
	N     int
	State BoardState
	// StoresSolutions is false for boards that keep counts only (beyond the
	// storage limit).
	StoresSolutions bool
	// Counts are nil until the board is done.
	Counts *solver.Counts

	// The plan: chunks are the placements of the first ChunkDepth rows,
	// or, when Tasks, the counter's tasks (ChunkDepth 0). Zero while
	// pending.
	ChunkDepth  int
	Tasks       bool
	ChunksTotal int
	// Progress, kept by WriteChunk in the same transaction as each chunk.
	ChunksDone    int
	SolutionsDone uint64

	StartedAt  time.Time     // when first planned; zero while pending
	FinishedAt time.Time     // zero until done
	Duration   time.Duration // FinishedAt − StartedAt; zero until done
	// SolverVersion names the solver that computed it, from the plan.
	SolverVersion string
	// LastError is the reason given to FailBoard; empty otherwise.
	LastError string
	// RequestedBy names who asked for the board (checkRequestedBy says
	// what a name may be); empty when not known. The call that made the
	// row wrote it, and nothing changes it after.
	RequestedBy string
	UpdatedAt   time.Time
}

// BoardRequest asks for board N to be computed (Store.RequestBoard).
type BoardRequest struct {
	N int
	// RequestedBy names who asks; empty when not known. It is kept only
	// by the request that makes the board's row: the first.
	RequestedBy string
}

// BoardPlan is how a board is to be computed.
type BoardPlan struct {
	N int
	// ChunkDepth is the prefix length of the chunks (0..N), usually
	// solver.DefaultChunkDepth(N). The store makes the chunk rows with
	// solver.Chunks(N, ChunkDepth).
	ChunkDepth int
	// Tasks plans the chunks as the counter's tasks, solver.Tasks(N),
	// instead of prefixes (ChunkDepth must then be 0). Only for a board
	// that keeps counts only: a task counts the solutions of all the
	// images of its frame without listing them, an eighth of the search.
	Tasks bool
	// TasksPerChunk groups that many consecutive tasks into a chunk (0 or
	// 1: one each), so that a chunk is worth its job's round trips: a task
	// of N=17 takes about 2 ms.
	TasksPerChunk   int
	StoresSolutions bool
	SolverVersion   string
	// RequestedBy is written when PlanBoard makes the board's row (no
	// request came first), as BoardRequest's.
	RequestedBy string
}

// PlanOf is the plan board b was planned under, to resume it.
func PlanOf(b Board, solverVersion string) BoardPlan {
	return BoardPlan{N: b.N, ChunkDepth: b.ChunkDepth, Tasks: b.Tasks, StoresSolutions: b.StoresSolutions,
		SolverVersion: solverVersion, RequestedBy: b.RequestedBy}
}

// ChunkRecord is the row of one chunk of a board.
type ChunkRecord struct {
	N int
	// Index is the chunk's position among the board's chunks, 0-based, in
	// lexicographic order of prefixes (the order of solver.Chunks), or in
	// the order of solver.Tasks.
	Index int
	// Prefix is the chunk's prefix; nil for a task.
	Prefix solver.Placement
	// Tasks are the chunk's tasks when the board is planned by tasks; nil
	// otherwise.
	Tasks []solver.Task
	// Counts are nil until the chunk is done: Total is its solutions,
	// Unique and the Orbit fields count its canonical solutions.
	Counts *solver.Counts
	DoneAt time.Time // zero until done
}
