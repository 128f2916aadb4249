package graph

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nqueens/nqueens/internal/boardwatch"
	"github.com/nqueens/nqueens/internal/bytecache"
	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"golang.org/x/sync/singleflight"
)

// Resolver is the root resolver: the dependencies and the caches that
// every resolver shares.
type Resolver struct {
	opts   Options
	boards BoardReader
	solver SolverPool
	pages  *bytecache.Cache[pageKey, []solver.Placement] // nil when off
	ranks  *bytecache.Cache[rankKey, uint64]             // nil when off
	// filterCounts keeps the counts of filtered boards (nil when off):
	// the totalCount of every page of one filtered listing.
	filterCounts *bytecache.Cache[filterCountKey, solver.Counts]
	// done keeps the rows of DONE boards (int → store.Board): a done board
	// never changes (the store refuses to plan or fail it again), so its
	// row is read once per process. Every other row is read each time,
	// which is what lets boardProgress follow workers in other processes.
	done sync.Map
	// indexes keeps the rank indexes of boards not in the store.
	indexes rankIndexes

	countMu sync.Mutex
	counted map[int]solver.Counts
	countSF singleflight.Group

	// watch follows the boards of boardProgress subscriptions; nil
	// without a store.
	watch *boardwatch.Hub[*Board]
}

// NewResolver returns the root resolver for opts.
func NewResolver(opts Options) (*Resolver, error) {
	if err := opts.Check(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	r := &Resolver{
		opts:    opts,
		boards:  opts.Boards,
		solver:  opts.Solver,
		counted: map[int]solver.Counts{},
	}
	if r.solver == nil {
		r.solver = solverpool.New(opts.SolverPoolConfig())
	}
	if r.boards == nil {
		r.boards = noStore{}
	}
	if (opts.Boards == nil) != (opts.Stored == nil) {
		return nil, errors.New("graph: Boards and Stored come together (both from the store) or not at all")
	}
	if opts.Boards != nil {
		r.watch = boardwatch.New(boardwatch.Config[*Board]{
			Read:          r.status,
			ReadAll:       func(ctx context.Context) ([]store.Board, error) { return opts.Boards.Boards(ctx) },
			Convert:       r.boardModel,
			PollInterval:  opts.PollInterval,
			SweepInterval: opts.SweepInterval,
			Logger:        opts.Logger,
		})
	}
	if opts.PageCacheBytes > 0 {
		r.pages = bytecache.New(opts.PageCacheBytes, pageCost)
		r.ranks = bytecache.New(opts.PageCacheBytes/4, rankCost)
		r.filterCounts = bytecache.New(opts.PageCacheBytes/16, filterCountCost)
	}
	return r, nil
}

// Options returns the options the resolver was made with.
func (r *Resolver) Options() Options { return r.opts }

// PokeBoard tells boardProgress that board n may have started being
// computed (the precompute mutation calls it for the board it asked
// for): its subscribers, if any, see it at once rather than at the next
// sweep. Anything else that starts boards in this process may call it.
func (r *Resolver) PokeBoard(n int) {
	if r.watch != nil {
		r.watch.Poke(n)
	}
}

// SubscriptionStats says how many boards boardProgress follows now, for
// how many subscribers, and how many of them it polls (for metrics).
func (r *Resolver) SubscriptionStats() boardwatch.Stats {
	if r.watch == nil {
		return boardwatch.Stats{}
	}
	return r.watch.Stats()
}

// Close ends the boardProgress subscriptions and the goroutines that
// follow their boards (Server.Close calls it).
func (r *Resolver) Close() {
	if r.watch != nil {
		r.watch.Close()
	}
}
