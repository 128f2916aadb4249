package graph

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"golang.org/x/sync/singleflight"

	"github.com/nqueens/nqueens/internal/bytecache"
	"github.com/nqueens/nqueens/solver"
)

// Options configure the resolvers. The zero value serves every board from
// the solver, with the defaults below and no store.
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

	// AdminToken is the bearer token mutations need; "" refuses them all.
	AdminToken string
	// MaxPageSize bounds first and last (default 1000).
	MaxPageSize int
	// DefaultPageSize is the page size when neither first nor last is
	// given (default 20).
	DefaultPageSize int
	// CountMaxN is the largest N counted on the spot when the store has no
	// counts (default 15: N=15 takes well under a second).
	CountMaxN int
	// RankWalkMaxN is the largest N whose ranks the solver finds by walking
	// (default 14).
	RankWalkMaxN int
	// SolverSlots bounds the solver searches running at once (default
	// GOMAXPROCS); they are shared fairly between clients.
	SolverSlots int
	// SolverBudget is the solver time one operation may spend, all of its
	// fields together (default 5s).
	SolverBudget time.Duration
	// PageCacheBytes bounds the memory of the pages kept (and a quarter as
	// much for the ranks); 0 turns the caches off. Pages never change once
	// computed: the solver's are fixed, and the store's come from finished
	// boards only.
	PageCacheBytes int64
	// OnCacheLookup, when set, is told of every lookup in the page cache
	// ("page") and in the rank cache ("rank"): hit or miss (for metrics).
	OnCacheLookup func(cache string, hit bool)
	// PollInterval is how often boardProgress reads the store (default 1s).
	PollInterval time.Duration
	// CountTimeout bounds an on-the-spot count, which goes on after the
	// request that started it gave up so that the next one finds it done
	// (default 1 minute).
	CountTimeout time.Duration
	// Logger receives internal errors (default slog.Default()).
	Logger *slog.Logger
}

func (o *Options) setDefaults() {
	if o.MaxPageSize <= 0 {
		o.MaxPageSize = 1000
	}
	if o.DefaultPageSize <= 0 {
		o.DefaultPageSize = min(20, o.MaxPageSize)
	}
	if o.CountMaxN == 0 {
		o.CountMaxN = 15
	}
	if o.RankWalkMaxN == 0 {
		o.RankWalkMaxN = 14
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.SolverBudget <= 0 {
		o.SolverBudget = 5 * time.Second
	}
	if o.CountTimeout <= 0 {
		o.CountTimeout = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
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

	countMu sync.Mutex
	counted map[int]solver.Counts
	countSF singleflight.Group
}

// pageKey names a cached page. Pages of the store and of the solver are
// equal by contract; the source is part of the key all the same.
type pageKey struct {
	source        Source
	n             int
	kind          Kind
	after, before string
	limit         int
	backward      bool
}

type rankKey struct {
	n         int
	kind      Kind
	placement string
}

// pageCost and rankCost estimate the bytes a cached page or rank takes:
// its key, its placements (a slice header and an int a row each, rounded
// up to Go's allocation sizes) and the cache's own entry.
func pageCost(k pageKey, page []solver.Placement) int64 {
	cost := int64(len(k.after)+len(k.before)) + 160 + 24*int64(len(page))
	for _, p := range page {
		cost += 8 * int64((len(p)+1)/2*2)
	}
	return cost
}

func rankCost(k rankKey, _ uint64) int64 { return int64(len(k.placement)) + 120 }

func makePageKey(src Source, req PageRequest) pageKey {
	k := pageKey{source: src, n: req.N, kind: req.Kind, limit: req.Limit, backward: req.Backward}
	if req.After != nil {
		k.after = string(req.After.Bytes())
	}
	if req.Before != nil {
		k.before = string(req.Before.Bytes())
	}
	return k
}

// NewResolver returns the root resolver for opts.
func NewResolver(opts Options) (*Resolver, error) {
	opts.setDefaults()
	r := &Resolver{
		opts:    opts,
		boards:  opts.Boards,
		solver:  NewSolverSource(opts.SolverSlots, solverQuantum, opts.SolverBudget, opts.RankWalkMaxN),
		counted: map[int]solver.Counts{},
	}
	if r.boards == nil {
		r.boards = noStore{}
	}
	if (opts.Boards == nil) != (opts.Stored == nil) {
		return nil, errors.New("graph: Boards and Stored come together (both from the store) or not at all")
	}
	if opts.PageCacheBytes > 0 {
		r.pages = bytecache.New(opts.PageCacheBytes, pageCost)
		r.ranks = bytecache.New(opts.PageCacheBytes/4, rankCost)
	}
	return r, nil
}

// Options returns the options in effect, defaults filled in.
func (r *Resolver) Options() Options { return r.opts }

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

// status reads board N's status from the store (UNKNOWN without one).
func (r *Resolver) status(ctx context.Context, n int) (BoardStatus, error) {
	st, err := r.boards.Board(ctx, n)
	if err != nil {
		return BoardStatus{}, dependencyError(fmt.Sprintf("reading board N=%d from the store", n), err)
	}
	st.N = n
	if st.State == "" {
		st.State = BoardStateUnknown
	}
	return st, nil
}

// source picks where pages of a board come from: the store once it holds
// them all, the solver otherwise.
func (r *Resolver) source(st BoardStatus) (SolutionSource, Source) {
	if r.opts.Stored != nil && st.State == BoardStateDone && st.StoresSolutions {
		return r.opts.Stored, SourceStore
	}
	return r.solver, SourceSolver
}

func (r *Resolver) boardModel(st BoardStatus) *Board {
	_, src := r.source(st)
	return &Board{N: st.N, status: st, source: src}
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

// countsOf returns the counts of a board: the store's when it has them,
// else computed on the spot for N up to CountMaxN, else nil (unknown).
func (r *Resolver) countsOf(ctx context.Context, st BoardStatus) (*solver.Counts, Source, error) {
	if st.Counts != nil {
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

// total returns the size of listing kind of a board, nil when unknown.
func (r *Resolver) total(ctx context.Context, st BoardStatus, kind Kind) (*uint64, error) {
	c, _, err := r.countsOf(ctx, st)
	if err != nil || c == nil {
		return nil, err
	}
	t := c.Total
	if kind == KindUnique {
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
// st is the board's status when the caller has it already.
func (r *Resolver) connection(ctx context.Context, n int, kind Kind, st *BoardStatus, first *int, after *string, last *int, before *string) (*SolutionConnection, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	limit, backward, err := r.pageArgs(first, last)
	if err != nil {
		return nil, err
	}
	var a, b solver.Placement
	if after != nil {
		if a, err = decodeCursor("after", *after, kind, n); err != nil {
			return nil, err
		}
	}
	if before != nil {
		if b, err = decodeCursor("before", *before, kind, n); err != nil {
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
	req := PageRequest{N: n, Kind: kind, After: a, Before: b, Limit: limit + 1, Backward: backward}
	page, err := r.page(ctx, src, tag, req)
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
		kind:   kind,
		status: *st,
		PageInfo: &PageInfo{
			// A cursor names an item of the listing (decodeCursor checks
			// it), so there is more beyond a cursor given as a bound.
			HasNextPage:     more && !backward || backward && b != nil,
			HasPreviousPage: more && backward || !backward && a != nil,
		},
	}
	if len(page) > 0 {
		first := page[0]
		pi := &pageIndex{kind: kind, find: func(ctx context.Context) (uint64, error) {
			return r.index(ctx, src, n, kind, first)
		}}
		// One allocation for all the solutions, one for all the edges.
		sols := make([]Solution, len(page))
		edges := make([]SolutionEdge, len(page))
		for i, p := range page {
			sols[i] = Solution{N: n, p: p, page: pi, offset: i}
			edges[i] = SolutionEdge{Node: &sols[i], Cursor: EncodeCursor(kind, p)}
			conn.Nodes[i] = &sols[i]
			conn.Edges[i] = &edges[i]
		}
		conn.PageInfo.StartCursor = &conn.Edges[0].Cursor
		conn.PageInfo.EndCursor = &conn.Edges[len(page)-1].Cursor
	}
	return conn, nil
}

// page returns a page from src, through the page cache.
func (r *Resolver) page(ctx context.Context, src SolutionSource, tag Source, req PageRequest) ([]solver.Placement, error) {
	var key pageKey
	if r.pages != nil {
		key = makePageKey(tag, req)
		p, ok := r.pages.Get(key)
		r.cacheLookup("page", ok)
		if ok {
			return p, nil
		}
	}
	v, err := r.solver.operationOf(ctx).once(makePageKey(tag, req), func() (any, error) { return src.Page(ctx, req) })
	if err != nil {
		return nil, dependencyError(fmt.Sprintf("listing solutions of N=%d", req.N), err)
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

// index returns the 0-based index of p in listing kind, through the rank
// cache.
func (r *Resolver) index(ctx context.Context, src SolutionSource, n int, kind Kind, p solver.Placement) (uint64, error) {
	var key rankKey
	if r.ranks != nil {
		key = rankKey{n: n, kind: kind, placement: string(p.Bytes())}
		i, ok := r.ranks.Get(key)
		r.cacheLookup("rank", ok)
		if ok {
			return i, nil
		}
	}
	v, err := r.solver.operationOf(ctx).once(rankKey{n: n, kind: kind, placement: string(p.Bytes())}, func() (any, error) {
		return src.Index(ctx, n, kind, p)
	})
	if err != nil {
		return 0, dependencyError(fmt.Sprintf("ranking a solution of N=%d", n), err)
	}
	i := v.(uint64)
	if r.ranks != nil {
		r.ranks.Add(key, i)
	}
	return i, nil
}

// at returns the solution at 0-based index i of a board's listing kind,
// once per operation.
func (r *Resolver) at(ctx context.Context, st BoardStatus, kind Kind, i uint64) (solver.Placement, error) {
	src, tag := r.source(st)
	type atKey struct {
		source Source
		n      int
		kind   Kind
		i      uint64
	}
	v, err := r.solver.operationOf(ctx).once(atKey{tag, st.N, kind, i}, func() (any, error) { return src.At(ctx, st.N, kind, i) })
	if err != nil {
		return nil, err
	}
	return v.(solver.Placement), nil
}

// rank resolves Solution.rank (KindAll) and Solution.uniqueRank
// (KindUnique): 1-based, nil when not canonical (unique) or when the
// solver may not walk a board that large.
func (r *Resolver) rank(ctx context.Context, s *Solution, kind Kind) (*BigInt, error) {
	if kind == KindUnique && !solver.IsCanonical(s.p) {
		return nil, nil
	}
	var (
		i   uint64
		err error
	)
	if s.page != nil && s.page.kind == kind {
		i, err = s.page.get(ctx)
		i += uint64(s.offset)
	} else {
		var st BoardStatus
		if st, err = r.status(ctx, s.N); err != nil {
			return nil, err
		}
		src, _ := r.source(st)
		i, err = r.index(ctx, src, s.N, kind, s.p)
	}
	if errors.Is(err, errNoWalk) {
		markVolatile(ctx)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return bigPtr(i + 1), nil
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
	conn := func(child int, first, last *int) int { return 1 + size(first, last)*child }
	c.Query.Solutions = func(child int, _ int, first *int, _ *string, last *int, _ *string) int {
		return conn(child, first, last)
	}
	c.Query.UniqueSolutions = c.Query.Solutions
	c.Board.Solutions = func(child int, first *int, _ *string, last *int, _ *string) int {
		return conn(child, first, last)
	}
	c.Board.UniqueSolutions = c.Board.Solutions
	c.Query.Boards = func(child int, _ *BoardState) int { return 1 + solver.MaxSearchN*child }
	c.Solution.Symmetries = func(child int) int { return 1 + 8*child }
	c.Solution.Svg = func(child int, _ int) int { return 10 }
	c.Solution.Matrix = func(child int) int { return 4 }
	c.Query.SolutionAt = func(child int, _ int, _ BigInt, _ *bool) int { return 50 + child }
	c.Query.Count = func(child int, _ int) int { return 10 + child }
	return c
}

// NewSchema returns the executable schema over r, with the complexity
// costs above.
func NewSchema(r *Resolver) graphql.ExecutableSchema {
	return NewExecutableSchema(Config{Resolvers: r, Complexity: r.complexity()})
}

// boardCounts returns a board's counts (nil while unknown, which may
// change: noted in the cache hint).
func (r *Resolver) boardCounts(ctx context.Context, b *Board) (*solver.Counts, Source, error) {
	c, src, err := r.countsOf(ctx, b.status)
	if c == nil {
		markVolatile(ctx)
	}
	return c, src, err
}

// maxValidateN is the largest board validate checks; the request body
// limit usually bounds it first.
const maxValidateN = 1_000_000
