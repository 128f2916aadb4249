package graph

import (
	"context"
	"errors"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// The resolvers reach their dependencies only through the interfaces in
// this file, defined here, on the consumer's side. The solver-backed
// SolutionSource (SolverSource) is always there; the store and the
// precompute engine plug in through Config.Boards, Config.Stored and
// Config.Precompute. Left nil, the server runs without them: every board is
// UNKNOWN, pages come from the solver, precompute answers UNAVAILABLE.

// Kind says which listing of a board a page, rank or cursor belongs to.
type Kind uint8

// The two listings of a board.
const (
	// KindAll lists every solution of N in lexicographic order.
	KindAll Kind = iota
	// KindUnique lists the canonical solution of every symmetry class (the
	// smallest placement of its class) in lexicographic order.
	KindUnique
)

func (k Kind) String() string {
	if k == KindUnique {
		return "unique"
	}
	return "all"
}

// BoardStatus is what the store knows about board N: the row the
// precompute keeps per N. The zero value with N set is a board nothing is
// known about (state UNKNOWN).
type BoardStatus struct {
	N     int
	State BoardState
	// StoresSolutions: the precompute keeps every solution of N (N up to
	// the storage limit), not only the counts. When State is DONE and
	// StoresSolutions is set, pages of N come from the store.
	StoresSolutions bool
	// Counts are the board's final counts: set only when State is DONE (a
	// running board's partial sums are in SolutionsFound).
	Counts *solver.Counts
	// Progress of the precompute: chunks planned and finished, and the
	// solutions the finished chunks hold.
	ChunksDone, ChunksTotal int
	SolutionsFound          uint64
	// Timings; zero when not (yet) happened.
	RequestedAt, StartedAt, FinishedAt, UpdatedAt time.Time
	// Error is why the board failed, when State is FAILED.
	Error string
}

// Final reports whether nothing about the board will change any more.
func (s BoardStatus) Final() bool { return s.State == BoardStateDone }

// BoardReader reads the per-N rows of the store.
type BoardReader interface {
	// Board returns what is known about board N. An N the store has no row
	// for is not an error: it returns BoardStatus{N: n, State:
	// BoardStateUnknown}.
	Board(ctx context.Context, n int) (BoardStatus, error)
	// Boards returns the boards the store has a row for, in ascending N.
	Boards(ctx context.Context) ([]BoardStatus, error)
}

// PageRequest asks for one page of a listing: solutions strictly between
// After and Before (each optional: nil means unbounded), either the first
// Limit of them (forward) or the last Limit (Backward). Pages are always
// returned in ascending order.
type PageRequest struct {
	N        int
	Kind     Kind
	After    solver.Placement // exclusive lower bound, nil for none
	Before   solver.Placement // exclusive upper bound, nil for none
	Limit    int              // > 0
	Backward bool             // the last Limit before Before, not the first Limit after After
}

// SolutionSource lists the solutions of a board in lexicographic order.
// The store implements it for the boards it holds (keyset pagination:
// placement > $after ORDER BY placement LIMIT $limit, or the reverse), and
// SolverSource for every N from the solver. Both must give the same
// answers: same order, same pages.
type SolutionSource interface {
	// Page returns the page req asks for, in ascending order; fewer than
	// req.Limit solutions only at the end of the listing (or of the range).
	Page(ctx context.Context, req PageRequest) ([]solver.Placement, error)
	// At returns the solution at 0-based index i of the listing, or an
	// error wrapping ErrNotFound when the listing has i or fewer items.
	At(ctx context.Context, n int, kind Kind, i uint64) (solver.Placement, error)
	// Index returns the 0-based index of p in the listing: how many of its
	// items sort before p. p is a solution of N (canonical for KindUnique).
	Index(ctx context.Context, n int, kind Kind, p solver.Placement) (uint64, error)
}

// Precomputer starts the background computation of a board (River jobs in
// the precompute package).
type Precomputer interface {
	// Precompute asks for board N to be computed and kept: its solutions
	// too when storeSolutions is true, only its counts when false, and as
	// the server's storage limit says when nil. Asking for a board that is
	// pending, running or done changes nothing. It returns the board's
	// status after the request; for a board still pending, the resolver
	// reads it again through the BoardReader, which knows what its job
	// was asked to keep (the row of a pending board has no plan).
	Precompute(ctx context.Context, n int, storeSolutions *bool) (BoardStatus, error)
}

// Errors a dependency wraps so that the API answers with the right code.
var (
	// ErrUnavailable: the dependency cannot answer now (database down,
	// pool exhausted); the API answers UNAVAILABLE.
	ErrUnavailable = errors.New("unavailable")
	// ErrNotFound: the item asked for does not exist; the API answers
	// NOT_FOUND.
	ErrNotFound = errors.New("not found")
)

// noStore is the absent store: it knows nothing about any board.
type noStore struct{}

func (noStore) Board(_ context.Context, n int) (BoardStatus, error) {
	return BoardStatus{N: n, State: BoardStateUnknown}, nil
}

func (noStore) Boards(context.Context) ([]BoardStatus, error) { return nil, nil }
