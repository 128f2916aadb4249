package graph

import (
	"context"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// The resolvers reach their dependencies only through the interfaces in
// this file, defined here, on the consumer's side, in the store's domain
// types: a store.Reader is a BoardReader and a Listing as it is, and so
// is every other implementation (solverpool.Pool lists every N from the
// solver). Their errors carry the service's error codes (package
// nqueens), which server's one table (server/errors.go) maps to
// the API's. The store plugs in through Options.Boards and
// Options.Stored, the precompute engine through Options.Precompute and
// Options.Plans. Left nil, the server runs without them: every board is
// UNKNOWN, pages come from the solver, precompute answers UNAVAILABLE.

// BoardReader reads the per-N rows of the store.
type BoardReader interface {
	// Board returns the row of board N, ENOTFOUND when there is none (the
	// board is UNKNOWN).
	Board(ctx context.Context, n int) (store.Board, error)
	// Boards returns the rows in one of states (all of them when none is
	// given), in ascending N.
	Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error)
	// SquareCounts returns the statistics of board N, ENOTFOUND while
	// they are not known.
	SquareCounts(ctx context.Context, n int) (solver.SquareCounts, error)
	// FilteredCount returns the stored count of N under filter f (kept
	// by f.Key()), ENOTFOUND when it was never asked for.
	FilteredCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error)
	// FilteredCountChunks returns the counts of the chunks of the done
	// count of N under f by chunk index (the zero filter's: the rank
	// index), ENOTFOUND while there is none.
	FilteredCountChunks(ctx context.Context, n int, f solver.Filter) ([]solver.Counts, error)
}

// Listing lists the solutions of a board in lexicographic order,
// the canonical ones only when unique. The store implements it for the
// boards it holds (keyset pagination), and solverpool.Pool for every N from
// the solver. Both must give the same answers: same order, same pages.
// The resolvers read a solution's Placement (and nothing else); ranks are
// 1-based.
type Listing interface {
	// Page returns up to req.Limit solutions next to req.Cursor, in
	// ascending order whatever the direction; fewer only at the end of the
	// listing.
	Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error)
	// SolutionAt returns solution #rank of the listing, ENOTFOUND past its
	// end.
	SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error)
	// Rank returns the rank of p in the listing: p is a solution of N
	// (canonical when unique).
	Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error)
}

// Precomputer starts the background computation of a board (River jobs in
// the precompute package).
type Precomputer interface {
	// Precompute asks for board req.N to be computed and kept, on behalf
	// of req.RequestedBy: its solutions too when storeSolutions is true,
	// only its counts when false, and as the server's storage limit says
	// when nil. Asking for a board that is pending, running or done
	// changes nothing (not its requester either). It returns the board's
	// row after the request (EINVALID for a request it refuses, with the
	// reason).
	Precompute(ctx context.Context, req store.BoardRequest, storeSolutions *bool) (store.Board, error)
	// PrecomputeCount asks for the count of N under f to be computed in
	// the background and stored (keyed by f.Key()). Asking again for a
	// count that runs or is done changes nothing. It returns the count's
	// row (EINVALID for a request it refuses, with the reason).
	PrecomputeCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error)
}

// PendingPlans says whether pending boards will keep their solutions. The
// store's row of a pending board has no plan yet (it says false): that was
// decided when the board was asked for, by whoever asked, and is kept with
// its job until a worker plans it.
type PendingPlans interface {
	// StoresSolutions reports it for each of the pending boards ns.
	StoresSolutions(ctx context.Context, ns []int) (map[int]bool, error)
}

// noStore is the absent store: it has no row for any board.
type noStore struct{}

var errNoStore = nqueens.Errorf(nqueens.ENOTFOUND, "the server runs without a store")

func (noStore) Board(context.Context, int) (store.Board, error) { return store.Board{}, errNoStore }

func (noStore) Boards(context.Context, ...store.BoardState) ([]store.Board, error) { return nil, nil }

func (noStore) FilteredCount(context.Context, int, solver.Filter) (store.FilteredCount, error) {
	return store.FilteredCount{}, errNoStore
}

func (noStore) FilteredCountChunks(context.Context, int, solver.Filter) ([]solver.Counts, error) {
	return nil, errNoStore
}

func (noStore) SquareCounts(context.Context, int) (solver.SquareCounts, error) {
	return solver.SquareCounts{}, errNoStore
}
