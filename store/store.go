// Package store keeps what the service computes: one row per board size N
// (its state, counts and progress), one row per prefix chunk of a board,
// and the solutions themselves, keyed by their placement so that byte order
// is lexicographic order (docs/ARCHITECTURE.md, "Decisions").
//
// This package holds the domain types, the contract of a backend split by
// who uses it (Reader for the API and the export, Writer[TTx] for the
// precompute) and Checked, the checks of every argument in front of a
// backend, which also tells an Observer of every call.
// The backends live in their own packages, one per dependency:
// store/postgres (pgx) and store/sqlite (modernc, no cgo); what they share
// is under store/internal. store/storetest is the conformance suite both
// of them pass.
package store

import (
	"context"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// The hooks below run inside a store transaction, after the store's own
// writes and before the commit, with the backend's native transaction
// TTx: a pgx.Tx on Postgres, a *sql.Tx on SQLite (as River's
// riverdriver.Driver[TTx]). They let the job system insert and complete
// its jobs in the same transaction as the rows they stand for. An error
// rolls everything back.

// PlanTxFunc runs in the transaction of a PlanBoard call that claims the
// board, with the board as it will be committed and its chunks not done yet
// (all of them for a new board), in chunk order.
type PlanTxFunc[TTx any] func(ctx context.Context, tx TTx, b Board, todo []ChunkRecord) error

// TxFunc runs in the transaction of a WriteChunk call, after the chunk's
// rows and before the board's progress: the board's row is locked from
// that update to the commit, by every writer of the board in turn, so it
// comes last.
type TxFunc[TTx any] func(ctx context.Context, tx TTx) error

// FilteredCountTxFunc runs in the transaction of a RequestFilteredCount
// call that creates the count or resumes a failed one, with the indexes of
// the chunks to count (those not written yet).
type FilteredCountTxFunc[TTx any] func(ctx context.Context, tx TTx, todo []int) error

// Observer is told of every call of a store, once it returns: the
// method's name, how long it took and its error (nil when it succeeded).
// Checked calls it; internal/metrics turns it into metrics.
type Observer func(method string, took time.Duration, err error)

// Store is one backend: what the API reads and what the precompute
// writes, in transactions of TTx. Both backends behave the same, as
// store/storetest checks.
type Store[TTx any] interface {
	Reader
	Writer[TTx]
	// Close releases the connections.
	Close() error
}

// ReadCloser is a backend as the API and the commands that only read hold
// it, whichever its transaction type.
type ReadCloser interface {
	Reader
	Close() error
}

// Reader is what the API and the export read. Ranks are 1-based: rank 1
// is "solution #1", the lexicographically first solution of N (or the
// first canonical one, when unique).
type Reader interface {
	// Board returns the row of N: nqueens.ENOTFOUND when N was never
	// requested or planned, nqueens.EINVALID when N is outside
	// 1..solver.MaxSearchN.
	Board(ctx context.Context, n int) (Board, error)
	// Boards returns the board rows in one of states (every row when
	// none is given), by ascending N.
	Boards(ctx context.Context, states ...BoardState) ([]Board, error)
	// Page returns up to req.Limit solutions next to req.Cursor, in
	// ascending order whatever the direction (keyset pagination: no
	// offsets). Ask for one more than you show to learn whether more exist.
	// A board that keeps no solutions (unknown, pending, counts only) is
	// nqueens.ENOTFOUND; a running one shows the chunks written so far.
	// Pages under a filter come from the solver, not from here.
	Page(ctx context.Context, req PageRequest) ([]Solution, error)
	// Walk calls visit with the placement (one byte per row) of every
	// solution after req.After that matches req.Filter (the classes with a
	// matching member, by their canonical member, when unique), in
	// ascending order, streaming from one query: the export's way to read
	// a whole board. The bytes are valid only during the call. The board
	// must be done and store its solutions (nqueens.ENOTFOUND otherwise).
	// An error of visit stops the walk and is returned as it is.
	Walk(ctx context.Context, req WalkRequest, visit func(placement []byte) error) error
	// SolutionAt returns solution #rank of N (of its canonical solutions
	// when unique), with Rank set. The board must be done and store its
	// solutions (nqueens.ENOTFOUND otherwise, and for a rank past the
	// last); rank 0 is nqueens.EINVALID.
	SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (Solution, error)
	// Rank returns the 1-based position of placement p among the solutions
	// of N (among the canonical ones when unique). nqueens.ENOTFOUND when
	// p is not one of them or the board is not done; nqueens.EINVALID when
	// p is not a placement of N.
	Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error)
	// SquareCounts returns the statistics of board N: how many of its
	// solutions, and how many of its canonical ones, have a queen on each
	// square. WriteChunk keeps them for every chunk that lists its
	// solutions. nqueens.ENOTFOUND while they are not known, with the
	// reason: the board is not done, keeps counts only by tasks (which
	// count without listing solutions), or was computed, at least in
	// part, before the store kept statistics.
	SquareCounts(ctx context.Context, n int) (solver.SquareCounts, error)
	// FilteredCount returns the count of N under filter f:
	// nqueens.ENOTFOUND when it was never asked for.
	FilteredCount(ctx context.Context, n int, f solver.Filter) (FilteredCount, error)
	// FilteredCountChunks returns the counts (Total and Unique) of the
	// chunks of the done count of N under f, by chunk index: the chunks of
	// solver.PlanFilteredCount, in lexicographic order, so that their
	// prefix sums rank the solutions (the zero filter's count is the rank
	// index of a board that keeps counts only). nqueens.ENOTFOUND when the
	// count was never asked for or is not done.
	FilteredCountChunks(ctx context.Context, n int, f solver.Filter) ([]solver.Counts, error)
	// Ping checks that the database answers (nqueens.EUNAVAILABLE when it
	// does not).
	Ping(ctx context.Context) error
}

// Writer is what the precompute engine and its workers write: the boards'
// lifecycle, their chunks, the workers' heartbeats and the counts under
// filters. Its hooks run in the backend's transaction, TTx.
type Writer[TTx any] interface {
	// RequestBoard records that req.N should be computed: a pending row,
	// with req.RequestedBy, when N has none yet. created reports whether
	// this call inserted it; an existing row is returned unchanged (the
	// first requester is kept).
	RequestBoard(ctx context.Context, req BoardRequest) (b Board, created bool, err error)
	// PlanBoard claims a board for computing: it inserts it, or moves a
	// pending or failed one, to running with the plan's chunk rows, then
	// runs onClaim (if not nil) in that same transaction. It is idempotent:
	// a running or done board is returned unchanged with claimed false, and
	// onClaim does not run. A failed board resumes (its done chunks stay
	// done) only under the same plan; another plan is nqueens.ECONFLICT.
	PlanBoard(ctx context.Context, plan BoardPlan, onClaim PlanTxFunc[TTx]) (b Board, claimed bool, err error)
	// Chunks returns the chunk rows of N in chunk order (nqueens.ENOTFOUND
	// for an unknown board).
	Chunks(ctx context.Context, n int) ([]ChunkRecord, error)
	// WriteChunk stores one computed chunk: its solutions, when the board
	// stores them, and its chunk row's counts, marking the chunk done and
	// adding to the board's progress, all in one transaction, then inTx
	// (if not nil) in that same transaction. Writing a chunk that is
	// already done writes nothing (inTx still runs), so a retried or
	// duplicated job is harmless. lastChunk reports whether this call
	// completed the board's last chunk: exactly one call per board sees
	// true, and its caller should FinishBoard. A failure or a cancelled
	// context leaves nothing of the chunk behind.
	WriteChunk(ctx context.Context, w ChunkWrite, inTx TxFunc[TTx]) (lastChunk bool, err error)
	// TouchBoard records that a running board is being worked on: it sets
	// the row's updated_at to now, so that progress readers see work that
	// is alive while chunks run long. A board that is not running is left
	// as it is (not an error); an unknown one is nqueens.ENOTFOUND.
	TouchBoard(ctx context.Context, n int) error
	// FinishBoard marks a board done, with its counts summed from its chunk
	// rows in the database and checked for consistency (solver.Counts.Check),
	// its duration, and the prefix sums that SolutionAt and Rank use.
	// nqueens.ECONFLICT while chunks are missing; a done board is returned
	// unchanged. Counts that do not add up fail the board and return
	// nqueens.EINTERNAL.
	FinishBoard(ctx context.Context, n int) (Board, error)
	// FailBoard marks a board failed with the reason (nqueens.ECONFLICT
	// for a done board). PlanBoard resumes it.
	FailBoard(ctx context.Context, n int, reason string) (Board, error)

	// SeeWorker records a heartbeat of worker process id: it is alive now.
	// The first one records when it started.
	SeeWorker(ctx context.Context, id string) error
	// Workers returns the worker processes on record, by id.
	Workers(ctx context.Context) ([]Worker, error)
	// ForgetWorker deletes the record of worker process id: it stopped, or
	// has long been gone. An unknown id is not an error.
	ForgetWorker(ctx context.Context, id string) error

	// RequestFilteredCount records that req.N under req.Filter be counted
	// in req.Chunks chunks: a running row, then onCreate (if not nil) in
	// the same transaction with every chunk index, for the job system to
	// queue them. It is idempotent: a running or done count is returned
	// unchanged (created false) and onCreate does not run. A failed one
	// resumes: running again, onCreate with the chunks not written yet
	// (created true). One asked for with another number of chunks is
	// nqueens.ECONFLICT.
	RequestFilteredCount(ctx context.Context, req FilteredCountRequest, onCreate FilteredCountTxFunc[TTx]) (c FilteredCount, created bool, err error)
	// WriteFilteredChunk records the count of one chunk, then inTx (if not
	// nil) in the same transaction. A chunk already written writes nothing
	// (inTx still runs): a retried or duplicated job counts once. The
	// write of the last chunk sums the chunks into the count and marks it
	// done, in its transaction. nqueens.ENOTFOUND when the count was never
	// asked for.
	WriteFilteredChunk(ctx context.Context, w FilteredChunkWrite, inTx TxFunc[TTx]) (FilteredCount, error)
	// FailFilteredCount marks a running count failed, with the reason
	// (nqueens.ECONFLICT for a done one, nqueens.ENOTFOUND for one never
	// asked for); a failed one stays as it is. RequestFilteredCount
	// resumes it.
	FailFilteredCount(ctx context.Context, n int, f solver.Filter, reason string) (FilteredCount, error)
}
