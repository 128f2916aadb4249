package graph

import (
	"cmp"
	"log/slog"
	"runtime"
	"time"

	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Options: what the resolvers are configured with, their defaults and
// the checks NewResolver makes.

// Options configure the resolvers. Start from DefaultOptions: NewResolver
// takes every field as it is (a zero means zero: no page cache, nothing
// counted on the spot) and refuses a value it cannot work with.
type Options struct {
	// Boards reads the store's per-N rows; nil: no store (every board is
	// UNKNOWN).
	Boards BoardReader
	// Stored pages the boards the store holds (state DONE with solutions
	// stored); nil: no store.
	Stored Listing
	// Precompute starts background work; nil: the precompute mutation
	// answers UNAVAILABLE.
	Precompute Precomputer
	// Plans says what pending boards will keep; nil: what their rows say
	// (false).
	Plans PendingPlans
	// Solver runs the searches of every board the store does not hold
	// and of every filter; nil: a solverpool.Pool of the settings below
	// (SolverPoolConfig). The transport that scopes operations and counts
	// the queue (server) passes its own.
	Solver SolverPool

	// AdminToken is the bearer token mutations need; "" refuses them all.
	AdminToken string
	// MaxPageSize bounds first and last: 1 to store.MaxPageLimit-1 (a
	// page asks the store for one more).
	MaxPageSize int
	// DefaultPageSize is the page size when neither first nor last is
	// given: 1 to MaxPageSize.
	DefaultPageSize int
	// CountMaxN is the largest N counted on the spot when the store has no
	// counts; 0: none.
	CountMaxN int
	// RankWalkMaxN is the largest N whose ranks the solver finds by
	// walking; 0: none (ranks come from the store only).
	RankWalkMaxN int
	// SolverSlots bounds the solver searches running at once (at least
	// 1); they are shared fairly between clients.
	SolverSlots int
	// SolverQueuePerClient bounds the searches one client has waiting for
	// a solver slot or running on one (at least 1): a request's fields
	// search one at a time, so it is about the client's requests at the
	// solver. Past it a field that would search answers at once
	// RATE_LIMITED (reason SOLVER_PER_CLIENT) without waiting, and the
	// request's other fields still answer. All clients together may have
	// solverpool.QueueTotal of them.
	SolverQueuePerClient int
	// SolverBudget is the solver time one operation may spend, all of its
	// fields together.
	SolverBudget time.Duration
	// PageCacheBytes bounds the memory of the pages kept (and a quarter as
	// much for the ranks); 0 turns the caches off. Pages never change once
	// computed: the solver's are fixed, and the store's come from finished
	// boards only.
	PageCacheBytes int64
	// OnCacheLookup, when set, is told of every lookup in the page cache
	// ("page") and in the rank cache ("rank"): hit or miss (for metrics).
	OnCacheLookup func(cache string, hit bool)
	// PollInterval is how often boardProgress reads a board being
	// computed (pending or running): one read per board, whatever the
	// number of its subscribers (internal/boardwatch).
	PollInterval time.Duration
	// SweepInterval is how often boardProgress reads the rows of all the
	// boards nobody computes (unknown, failed) that have subscribers, in
	// one read, to notice work asked for by another process; work asked
	// for in this process is noticed at once.
	SweepInterval time.Duration
	// CountTimeout bounds an on-the-spot count, which goes on after the
	// request that started it gave up so that the next one finds it done.
	CountTimeout time.Duration
	// Logger receives internal errors.
	Logger *slog.Logger
}

// DefaultOptions are the options serve starts with (its flags take their
// defaults from here), without a store: every board from the solver.
func DefaultOptions() Options {
	return Options{
		// A page of 1000 solutions with a dozen fields each is what the
		// default complexity limit (server.DefaultConfig) is sized for.
		MaxPageSize: 1000,
		// Small: a client that names no size gets a cheap page.
		DefaultPageSize: 20,
		// N=15 counts in well under a second; each N above takes about
		// 6.5 times longer (precompute.Config's JobTimeout).
		CountMaxN: 15,
		// N=14 walks its 365,596 solutions in about 0.25 s on one core;
		// N=15's 2,279,184 would take 1.6 s (solverpool.Config).
		RankWalkMaxN: 14,
		// The searches are CPU-bound: one per core.
		SolverSlots: runtime.GOMAXPROCS(0),
		// Turns go client by client: more waiting requests give a client
		// no more turns, only more to wait for. Eight is a page's
		// requests at once and a few more.
		SolverQueuePerClient: 8,
		// Half the default request budget (server.DefaultConfig): an
		// operation that spends it all still answers in time.
		SolverBudget: 5 * time.Second,
		// About 20,000 pages of 20 solutions of N=16 (pageCost), a small
		// share of a server's memory.
		PageCacheBytes: 64 << 20,
		// A subscriber sees its board move every second, for one row
		// read.
		PollInterval: time.Second,
		// A board asked for by another process shows within 10 s; the
		// sweep costs one read of the boards table, however many follow.
		SweepInterval: 10 * time.Second,
		// Far above what a count up to CountMaxN takes: only a machine
		// far too busy cuts one.
		CountTimeout: time.Minute,
		Logger:       slog.Default(),
	}
}

// Check says which field of o NewResolver refuses, if any, and what is
// allowed (a *configcheck.Error).
func (o Options) Check() error {
	if o.MaxPageSize >= store.MaxPageLimit {
		return configcheck.Errorf("MaxPageSize", "must be below %d (a page asks the store for one more), got %d", store.MaxPageLimit, o.MaxPageSize)
	}
	return cmp.Or(
		configcheck.AtLeast("MaxPageSize", o.MaxPageSize, 1),
		configcheck.Between("DefaultPageSize", o.DefaultPageSize, 1, o.MaxPageSize, "at most MaxPageSize"),
		configcheck.Between("CountMaxN", o.CountMaxN, 0, solver.MaxSearchN, "0: never count on the spot"),
		configcheck.Between("RankWalkMaxN", o.RankWalkMaxN, 0, solver.MaxSearchN, "0: never walk, ranks from the store only"),
		configcheck.AtLeast("SolverSlots", o.SolverSlots, 1),
		configcheck.AtLeast("SolverQueuePerClient", o.SolverQueuePerClient, 1),
		configcheck.Positive("SolverBudget", o.SolverBudget),
		configcheck.AtLeast("PageCacheBytes", o.PageCacheBytes, 0),
		configcheck.Positive("PollInterval", o.PollInterval),
		configcheck.Positive("SweepInterval", o.SweepInterval),
		configcheck.Positive("CountTimeout", o.CountTimeout),
		configcheck.Logger("Logger", o.Logger == nil),
	)
}

// solverQuantum is how long a search keeps its solver slot while others
// wait for one: about what one client's heavy request may delay
// another's.
const solverQuantum = 20 * time.Millisecond

// SolverPoolConfig is the solver pool the Solver* settings describe.
func (o Options) SolverPoolConfig() solverpool.Config {
	return solverpool.Config{Slots: o.SolverSlots, Quantum: solverQuantum, Budget: o.SolverBudget,
		RankWalkMaxN: o.RankWalkMaxN, QueuePerClient: o.SolverQueuePerClient}
}
