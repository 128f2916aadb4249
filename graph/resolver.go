package graph

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"golang.org/x/sync/singleflight"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/boardwatch"
	"github.com/nqueens/nqueens/internal/bytecache"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Options configure the resolvers. Start from DefaultOptions: NewResolver
// takes every field as it is (a zero means zero: no page cache, nothing
// counted on the spot) and refuses a value it cannot work with.
type Options struct {
	// Boards reads the store's per-N rows; nil: no store (every board is
	// UNKNOWN).
	Boards BoardReader
	// Stored pages the boards the store holds (state DONE with solutions
	// stored); nil: no store.
	Stored SolutionSource
	// Precompute starts background work; nil: the precompute mutation
	// answers UNAVAILABLE.
	Precompute Precomputer
	// Plans says what pending boards will keep; nil: what their rows say
	// (false).
	Plans PendingPlans

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
	// SolverQueueTotal of them.
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
		// N=15's 2,279,184 would take 1.6 s (SolverSource).
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

// Resolver is the root resolver: the dependencies and the caches that
// every resolver shares.
type Resolver struct {
	opts   Options
	boards BoardReader
	solver *SolverSource
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

	countMu sync.Mutex
	counted map[int]solver.Counts
	countSF singleflight.Group

	// watch follows the boards of boardProgress subscriptions; nil
	// without a store.
	watch *boardwatch.Hub[*Board]
}

// pageKey names a cached page: a source's answer to a page request.
// Pages of the store and of the solver are equal by contract; the source
// is part of the key all the same.
type pageKey struct {
	source    Source
	n         int
	unique    bool
	direction store.Direction
	cursor    string
	limit     int
	filter    string // solver.Filter.String(); "" for none
}

type rankKey struct {
	n         int
	unique    bool
	placement string
}

// pageCost and rankCost estimate the bytes a cached page or rank takes:
// its key, its placements (a slice header and an int a row each, rounded
// up to Go's allocation sizes) and the cache's own entry.
func pageCost(k pageKey, page []solver.Placement) int64 {
	cost := int64(len(k.cursor)+len(k.filter)) + 160 + 24*int64(len(page))
	for _, p := range page {
		cost += 8 * int64((len(p)+1)/2*2)
	}
	return cost
}

func rankCost(k rankKey, _ uint64) int64 { return int64(len(k.placement)) + 120 }

func makePageKey(src Source, req store.PageRequest, f solver.Filter) pageKey {
	return pageKey{source: src, n: req.N, unique: req.Unique, direction: req.Direction, cursor: string(req.Cursor.Bytes()), limit: req.Limit, filter: f.String()}
}

// NewResolver returns the root resolver for opts.
func NewResolver(opts Options) (*Resolver, error) {
	if err := opts.Check(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	r := &Resolver{
		opts:    opts,
		boards:  opts.Boards,
		solver:  NewSolverSource(opts.SolverSlots, solverQuantum, opts.SolverBudget, opts.RankWalkMaxN, opts.SolverQueuePerClient),
		counted: map[int]solver.Counts{},
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

// SolverQueue is the pool of the searches waiting for the solver or
// running on it, per client (Options.SolverQueuePerClient) and in total
// (SolverQueueTotal), for metrics.
func (r *Resolver) SolverQueue() *quota.Pool { return r.solver.queue }

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

// checkN checks a board size argument of the searched boards.
func checkN(n int) error {
	if n < 1 || n > solver.MaxSearchN {
		return badInput("n must be from 1 to %d (the largest board the search handles), got %d", solver.MaxSearchN, n)
	}
	return nil
}

// PrecomputeMaxN is the largest board the precompute mutation takes, as
// mutation.graphqls documents it: the engine's limit (precompute.MaxN,
// which cmd/nqueens checks it equals); graph does not import the engine.
const PrecomputeMaxN = 27

func checkPrecomputeN(n int) error {
	if n < 1 || n > PrecomputeMaxN {
		return badInput("n must be from 1 to %d (the largest board the precompute computes), got %d", PrecomputeMaxN, n)
	}
	return nil
}

// status reads board N's row from the store: store.Unknown without one.
func (r *Resolver) status(ctx context.Context, n int) (store.Board, error) {
	if b, ok := r.done.Load(n); ok {
		return b.(store.Board), nil
	}
	b, err := r.boards.Board(ctx, n)
	switch {
	case nqueens.ErrorCode(err) == nqueens.ENOTFOUND:
		return store.Board{N: n}, nil
	case err != nil:
		return store.Board{}, dependencyError(ctx, fmt.Sprintf("reading board N=%d from the store", n), err)
	}
	bs := []store.Board{r.remember(b)}
	if err := r.planPending(ctx, bs); err != nil {
		return store.Board{}, err
	}
	return bs[0], nil
}

// remember keeps the row of a DONE board.
func (r *Resolver) remember(b store.Board) store.Board {
	if b.State == store.Done {
		r.done.Store(b.N, b)
	}
	return b
}

// planPending sets StoresSolutions of the pending boards among bs as
// Options.Plans says. A board's job leaves the plans once a worker has
// planned the board, so its row is read again after them: a board still
// pending then was pending while they were read, and one no longer
// pending has its plan in its new row.
func (r *Resolver) planPending(ctx context.Context, bs []store.Board) error {
	var pending []int
	for _, b := range bs {
		if b.State == store.Pending {
			pending = append(pending, b.N)
		}
	}
	if r.opts.Plans == nil || len(pending) == 0 {
		return nil
	}
	stores, err := r.opts.Plans.StoresSolutions(ctx, pending)
	if err != nil {
		return dependencyError(ctx, "reading how pending boards will be computed", err)
	}
	for i := range bs {
		if bs[i].State != store.Pending {
			continue
		}
		b, err := r.boards.Board(ctx, bs[i].N)
		if err != nil {
			return dependencyError(ctx, fmt.Sprintf("reading board N=%d from the store", bs[i].N), err)
		}
		if b.State != store.Pending {
			bs[i] = r.remember(b)
			continue
		}
		bs[i].StoresSolutions = stores[bs[i].N]
	}
	return nil
}

// source picks where pages of a board come from: the store once it holds
// them all, the solver otherwise.
func (r *Resolver) source(b store.Board) (SolutionSource, Source) {
	if r.opts.Stored != nil && b.State == store.Done && b.StoresSolutions {
		return r.opts.Stored, SourceStore
	}
	return r.solver, SourceSolver
}

func (r *Resolver) boardModel(b store.Board) *Board {
	_, src := r.source(b)
	return &Board{N: b.N, row: b, source: src, squares: &lazySquareCounts{}}
}

// board returns the Board of N.
func (r *Resolver) board(ctx context.Context, n int) (*Board, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	st, err := r.status(ctx, n)
	if err != nil {
		return nil, err
	}
	return r.boardModel(st), nil
}

// countsOf returns the counts of a board: the store's once it is done,
// else computed on the spot for N up to CountMaxN, else nil (unknown).
func (r *Resolver) countsOf(ctx context.Context, st store.Board) (*solver.Counts, Source, error) {
	if st.State == store.Done && st.Counts != nil {
		return st.Counts, SourceStore, nil
	}
	if st.N > r.opts.CountMaxN {
		return nil, "", nil
	}
	c, err := r.solverCounts(ctx, st.N)
	if err != nil {
		return nil, "", err
	}
	return &c, SourceSolver, nil
}

// solverCounts counts N with the solver once per process. The count runs
// detached from the request (bounded by CountTimeout), so that a request
// that gives up leaves the result for the next one.
func (r *Resolver) solverCounts(ctx context.Context, n int) (solver.Counts, error) {
	r.countMu.Lock()
	c, ok := r.counted[n]
	r.countMu.Unlock()
	if ok {
		return c, nil
	}
	ch := r.countSF.DoChan(strconv.Itoa(n), func() (any, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.CountTimeout)
		defer cancel()
		c, err := solver.Count(cctx, n, solver.CountOptions{})
		if err == nil {
			err = c.Check()
		}
		if err != nil {
			return nil, err
		}
		r.countMu.Lock()
		r.counted[n] = c
		r.countMu.Unlock()
		return c, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			if errors.Is(res.Err, context.DeadlineExceeded) {
				return solver.Counts{}, &Error{Code: CodeTimeout, Err: res.Err,
					Message: fmt.Sprintf("counting N=%d with the solver took longer than %s", n, r.opts.CountTimeout)}
			}
			return solver.Counts{}, internal(res.Err)
		}
		return res.Val.(solver.Counts), nil
	case <-ctx.Done():
		return solver.Counts{}, timeoutError(ctx, fmt.Sprintf("counting N=%d with the solver", n))
	}
}

// total returns the size of a board's listing (unique: of its canonical
// solutions), nil when unknown.
func (r *Resolver) total(ctx context.Context, st store.Board, unique bool) (*uint64, error) {
	c, _, err := r.countsOf(ctx, st)
	if err != nil || c == nil {
		return nil, err
	}
	t := c.Total
	if unique {
		t = c.Unique
	}
	return &t, nil
}

// pageArgs checks first/last and says how many items to list and in
// which direction.
func (r *Resolver) pageArgs(first, last *int) (limit int, backward bool, err error) {
	max := r.opts.MaxPageSize
	switch {
	case first != nil && last != nil:
		return 0, false, badInput("give first (to page forward, with after) or last (to page backward, with before), not both")
	case first != nil:
		if *first < 0 || *first > max {
			return 0, false, badInput("first must be from 0 to %d (the maximum page size), got %d", max, *first)
		}
		return *first, false, nil
	case last != nil:
		if *last < 0 || *last > max {
			return 0, false, badInput("last must be from 0 to %d (the maximum page size), got %d", max, *last)
		}
		return *last, true, nil
	}
	return r.opts.DefaultPageSize, false, nil
}

// connection resolves solutions and uniqueSolutions, of Query and Board.
// st is the board's row when the caller has it already. A filtered
// listing pages from the solver, stored board or not.
func (r *Resolver) connection(ctx context.Context, n int, unique bool, st *store.Board, first *int, after *string, last *int, before *string, where *SolutionFilter) (*SolutionConnection, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	limit, backward, err := r.pageArgs(first, last)
	if err != nil {
		return nil, err
	}
	filter, err := filterArg(n, where)
	if err != nil {
		return nil, err
	}
	var a, b solver.Placement
	if after != nil {
		if a, err = decodeCursor("after", *after, unique, n); err != nil {
			return nil, err
		}
	}
	if before != nil {
		if b, err = decodeCursor("before", *before, unique, n); err != nil {
			return nil, err
		}
	}
	if st == nil {
		s, err := r.status(ctx, n)
		if err != nil {
			return nil, err
		}
		st = &s
	}
	src, tag := r.source(*st)
	if !filter.IsZero() {
		src, tag = r.solver, SourceSolver
	}
	page, err := r.window(ctx, src, tag, n, unique, filter, a, b, limit+1, backward)
	if err != nil {
		return nil, err
	}
	more := len(page) > limit
	if more {
		if backward {
			page = page[len(page)-limit:]
		} else {
			page = page[:limit]
		}
	}
	conn := &SolutionConnection{
		Edges:  make([]*SolutionEdge, len(page)),
		Nodes:  make([]*Solution, len(page)),
		Source: tag,
		n:      n,
		unique: unique,
		board:  *st,
		filter: filter,
		PageInfo: &PageInfo{
			// A cursor names an item of the listing (decodeCursor checks
			// it), so there is more beyond a cursor given as a bound.
			HasNextPage:     more && !backward || backward && b != nil,
			HasPreviousPage: more && backward || !backward && a != nil,
		},
	}
	if len(page) > 0 {
		first := page[0]
		pr := &pageRank{unique: unique, find: func(ctx context.Context) (uint64, error) {
			return r.rankOf(ctx, src, n, unique, first)
		}}
		if !filter.IsZero() {
			// A filtered page skips items of the listing: each item's rank
			// is found, from the board's own source.
			boardSrc, boardTag := r.source(*st)
			pr.find, pr.findEach = nil, func(ctx context.Context) ([]uint64, error) {
				return r.ranksOf(ctx, boardSrc, boardTag, n, unique, page)
			}
		}
		// One allocation for all the solutions, one for all the edges.
		sols := make([]Solution, len(page))
		edges := make([]SolutionEdge, len(page))
		for i, p := range page {
			sols[i] = Solution{N: n, p: p, page: pr, offset: i}
			edges[i] = SolutionEdge{Node: &sols[i], Cursor: EncodeCursor(unique, p)}
			conn.Nodes[i] = &sols[i]
			conn.Edges[i] = &edges[i]
		}
		conn.PageInfo.StartCursor = &conn.Edges[0].Cursor
		conn.PageInfo.EndCursor = &conn.Edges[len(page)-1].Cursor
	}
	return conn, nil
}

// window returns up to limit solutions of a listing strictly between
// after and before (each nil for none), the first ones (forward) or the
// last ones (backward), in ascending order: src's page next to one bound,
// cut at the other.
func (r *Resolver) window(ctx context.Context, src SolutionSource, tag Source, n int, unique bool, f solver.Filter, after, before solver.Placement, limit int, backward bool) ([]solver.Placement, error) {
	req := store.PageRequest{N: n, Unique: unique, Direction: store.Forward, Cursor: after, Limit: limit}
	if backward {
		req.Direction, req.Cursor = store.Backward, before
	}
	page, err := r.page(ctx, src, tag, req, f)
	if err != nil {
		return nil, err
	}
	switch {
	case backward && after != nil:
		// At or before the window's start: a backward page ends there.
		i := 0
		for i < len(page) && page[i].Compare(after) <= 0 {
			i++
		}
		page = page[i:]
	case !backward && before != nil:
		i := 0
		for i < len(page) && page[i].Compare(before) < 0 {
			i++
		}
		page = page[:i]
	}
	return page, nil
}

// page returns a page from src, through the page cache; under a filter,
// from the solver.
func (r *Resolver) page(ctx context.Context, src SolutionSource, tag Source, req store.PageRequest, f solver.Filter) ([]solver.Placement, error) {
	var key pageKey
	if r.pages != nil {
		key = makePageKey(tag, req, f)
		p, ok := r.pages.Get(key)
		r.cacheLookup("page", ok)
		if ok {
			return p, nil
		}
	}
	v, err := r.solver.operationOf(ctx).once(makePageKey(tag, req, f), func() (any, error) {
		var (
			sols []store.Solution
			err  error
		)
		if f.IsZero() {
			sols, err = src.Page(ctx, req)
		} else {
			sols, err = r.solver.FilteredPage(ctx, req, f)
		}
		if err != nil {
			return nil, err
		}
		page := make([]solver.Placement, len(sols))
		for i, s := range sols {
			page[i] = s.Placement
		}
		return page, nil
	})
	if err != nil {
		return nil, dependencyError(ctx, fmt.Sprintf("listing solutions of N=%d", req.N), err)
	}
	p := v.([]solver.Placement)
	if r.pages != nil {
		r.pages.Add(key, p)
	}
	return p, nil
}

// cacheLookup tells OnCacheLookup of a lookup in cache.
func (r *Resolver) cacheLookup(cache string, hit bool) {
	if r.opts.OnCacheLookup != nil {
		r.opts.OnCacheLookup(cache, hit)
	}
}

// rankOf returns the rank of p in the listing of N (unique: among its
// canonical solutions), through the rank cache.
func (r *Resolver) rankOf(ctx context.Context, src SolutionSource, n int, unique bool, p solver.Placement) (uint64, error) {
	var key rankKey
	if r.ranks != nil {
		key = rankKey{n: n, unique: unique, placement: string(p.Bytes())}
		rank, ok := r.ranks.Get(key)
		r.cacheLookup("rank", ok)
		if ok {
			return rank, nil
		}
	}
	v, err := r.solver.operationOf(ctx).once(rankKey{n: n, unique: unique, placement: string(p.Bytes())}, func() (any, error) {
		return src.Rank(ctx, n, p, unique)
	})
	if err != nil {
		return 0, dependencyError(ctx, fmt.Sprintf("ranking a solution of N=%d", n), err)
	}
	rank := v.(uint64)
	if r.ranks != nil {
		r.ranks.Add(key, rank)
	}
	return rank, nil
}

// ranksOf returns the ranks of page's placements, ascending items of the
// listing of N (unique: of its canonical solutions): one walk of the
// solver's listing up to the last of them, or one lookup each in the
// store.
func (r *Resolver) ranksOf(ctx context.Context, src SolutionSource, tag Source, n int, unique bool, page []solver.Placement) ([]uint64, error) {
	ranks := make([]uint64, len(page))
	if tag != SourceSolver {
		for i, p := range page {
			rank, err := r.rankOf(ctx, src, n, unique, p)
			if err != nil {
				return nil, err
			}
			ranks[i] = rank
		}
		return ranks, nil
	}
	var k uint64
	i := 0
	err := r.solver.walk(ctx, fmt.Sprintf("ranking solutions of N=%d with the solver", n), n, unique, func(q solver.Placement) bool {
		k++
		if q.Compare(page[i]) == 0 {
			ranks[i] = k
			i++
		}
		return i < len(page)
	})
	switch {
	case err != nil:
		return nil, err
	case i < len(page):
		return nil, internal(fmt.Errorf("the walk of N=%d (unique %t) did not pass %v", n, unique, page[i]))
	}
	return ranks, nil
}

// solutionAt returns solution #rank of a board's listing (unique: of its
// canonical solutions), once per operation.
func (r *Resolver) solutionAt(ctx context.Context, st store.Board, unique bool, rank uint64) (solver.Placement, error) {
	src, tag := r.source(st)
	type atKey struct {
		source Source
		n      int
		unique bool
		rank   uint64
	}
	v, err := r.solver.operationOf(ctx).once(atKey{tag, st.N, unique, rank}, func() (any, error) {
		sol, err := src.SolutionAt(ctx, st.N, rank, unique)
		return sol.Placement, err
	})
	if err != nil {
		return nil, err
	}
	return v.(solver.Placement), nil
}

// rank resolves Solution.rank and Solution.uniqueRank (unique): nil when
// not canonical (unique) or when the solver may not walk a board that
// large.
func (r *Resolver) rank(ctx context.Context, s *Solution, unique bool) (*BigInt, error) {
	if unique && !solver.IsCanonical(s.p) {
		return nil, nil
	}
	var (
		rank uint64
		err  error
	)
	if s.page != nil && s.page.unique == unique {
		rank, err = s.page.at(ctx, s.offset)
	} else {
		var st store.Board
		if st, err = r.status(ctx, s.N); err != nil {
			return nil, err
		}
		src, _ := r.source(st)
		rank, err = r.rankOf(ctx, src, s.N, unique, s.p)
	}
	if errors.Is(err, errNoWalk) {
		markVolatile(ctx)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return bigPtr(rank), nil
}

// authorize checks the admin token of a request that starts work.
func (r *Resolver) authorize(ctx context.Context) error {
	want := r.opts.AdminToken
	got := bearerToken(ctx)
	switch {
	case want == "":
		return newError(CodeUnauthenticated, "mutations are turned off: the server was started without an admin token (NQUEENS_ADMIN_TOKEN)")
	case got == "":
		return newError(CodeUnauthenticated, "this mutation needs the admin token: send the header \"Authorization: Bearer <token>\"")
	case subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1:
		return newError(CodeUnauthenticated, "the bearer token is not the admin token")
	}
	return nil
}

// solutionArg checks a placement argument that must be a solution of a
// searched board.
func solutionArg(name string, cols []int) (solver.Placement, error) {
	p, err := placementArg(name, cols, nil, solver.MaxSearchN)
	var c *solver.Conflict
	if errors.As(err, &c) {
		return nil, badInput("%s: not a solution: %v; validate(placement:) checks placements without an error", name, c)
	}
	return p, err
}

// Complexity costs of the fields that multiply or are heavy; every other
// field costs 1. The limit itself is set by the HTTP layer.
func (r *Resolver) complexity() ComplexityRoot {
	var c ComplexityRoot
	size := func(first, last *int) int {
		switch {
		case first != nil && *first > 0:
			return *first
		case last != nil && *last > 0:
			return *last
		case first != nil || last != nil:
			return 1
		}
		return r.opts.DefaultPageSize
	}
	// A filter makes a listing or a count a search (its totalCount a
	// count), bounded by the solver budget like any; it costs as much as
	// finding one solution by rank.
	filtered := func(where *SolutionFilter) int {
		if where != nil && len(where.Queens)+len(where.Empty) > 0 {
			return filterComplexity
		}
		return 0
	}
	conn := func(child int, first, last *int, where *SolutionFilter) int {
		return 1 + size(first, last)*child + filtered(where)
	}
	c.Query.Solutions = func(child int, _ int, first *int, _ *string, last *int, _ *string, where *SolutionFilter) int {
		return conn(child, first, last, where)
	}
	c.Query.UniqueSolutions = c.Query.Solutions
	c.Board.Solutions = func(child int, first *int, _ *string, last *int, _ *string, where *SolutionFilter) int {
		return conn(child, first, last, where)
	}
	c.Board.UniqueSolutions = c.Board.Solutions
	c.Query.Boards = func(child int, _ *store.BoardState) int { return 1 + solver.MaxSearchN*child }
	c.Solution.Symmetries = func(child int) int { return 1 + 8*child }
	c.Solution.Svg = func(child int, _ int) int { return 10 }
	c.Solution.Matrix = func(child int) int { return 4 }
	c.Query.SolutionAt = func(child int, _ int, _ BigInt, _ *bool) int { return 50 + child }
	c.Query.Count = func(child int, _ int, where *SolutionFilter) int { return 10 + child + filtered(where) }
	// A count's statistics may be a tally by the solver, a filtered count's
	// cost whether or not the count has a filter (the field does not see it).
	c.CountResult.SquareCounts = func(int) int { return filterComplexity }
	c.CountResult.UniqueSquareCounts = c.CountResult.SquareCounts
	// A completion's placement has n numbers: a tenth as dear as a page
	// of solutions with as many numbers in them.
	c.Query.Complete = func(child int, n int, _, _ []*SquareInput) int { return 10 + child + max(n, 0)/10 }
	return c
}

// filterComplexity is what a filter adds to a listing's or a count's
// complexity: what solutionAt's search costs.
const filterComplexity = 50

// NewSchema returns the executable schema over r, with the complexity
// costs above.
func NewSchema(r *Resolver) graphql.ExecutableSchema {
	return NewExecutableSchema(Config{Resolvers: r, Complexity: r.complexity()})
}

// boardCounts returns a board's counts (nil while unknown, which may
// change: noted in the cache hint).
func (r *Resolver) boardCounts(ctx context.Context, b *Board) (*solver.Counts, Source, error) {
	c, src, err := r.countsOf(ctx, b.row)
	if c == nil {
		markVolatile(ctx)
	}
	return c, src, err
}

// maxValidateN is the largest board validate checks; the request body
// limit usually bounds it first.
const maxValidateN = 1_000_000
