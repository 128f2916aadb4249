package graph

import (
	"context"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// SolverPool is what the resolvers use of the solver (internal/solverpool
// implements it): the listing of every N, and the searches beside it,
// each on a slot shared fairly between clients and within the request's
// solver budget (TIMEOUT past it), with the answers one operation's
// fields share.
type SolverPool interface {
	Listing
	// FilteredPage is Page restricted to what f matches: same order, same
	// cursors.
	FilteredPage(ctx context.Context, req store.PageRequest, f solver.Filter) ([]store.Solution, error)
	// CountFiltered counts the solutions of N that f matches and the
	// classes with a member that matches.
	CountFiltered(ctx context.Context, n int, f solver.Filter) (solver.Counts, error)
	// SquareCountsFiltered tallies the squares of the solutions of N that
	// f matches.
	SquareCountsFiltered(ctx context.Context, n int, f solver.Filter) (solver.SquareCounts, error)
	// Complete completes a board with queens on some squares and none on
	// others; running out of budget is an answer (Unknown), not an error.
	Complete(ctx context.Context, n int, f solver.Filter) (solver.Completion, error)
	// Walk calls visit with each item of the listing of N in order until
	// visit returns false; what says what it is for, in errors. It
	// refuses boards too large to walk (solverpool.ErrNoWalk).
	Walk(ctx context.Context, what string, n int, unique bool, visit func(p solver.Placement) bool) error
	// WalkChunk calls visit with each item of chunk c's part of the
	// listing, in order, until visit returns false: a chunk of a rank
	// index, whatever its N.
	WalkChunk(ctx context.Context, what string, c solver.Chunk, unique bool, visit func(p solver.Placement) bool) error
	// Once computes fn once per key in ctx's operation: identical fields
	// of one request share one search.
	Once(ctx context.Context, key any, fn func() (any, error)) (any, error)
}
