// Package graphstore plugs the store into the GraphQL API: Source adapts a
// store.Store to the interfaces the resolvers read through,
// graph.BoardReader and graph.SolutionSource. The graph package knows
// nothing of the store and the store nothing of GraphQL; cmd/nqueens wires
// the two through this package.
//
// What it translates:
//
//   - board rows: store.Board → graph.BoardStatus (a board the store has no
//     row for is UNKNOWN, not an error; counts only once DONE; whether a
//     pending board will store its solutions from Plans);
//   - pages: graph's Relay window (after and/or before, forward or
//     backward) → the store's keyset page next to one cursor, trimmed at
//     the other bound; placements in the same ascending order as the
//     solver's, so cursors (graph.EncodeCursor of the placement) are the
//     same whichever source served a page;
//   - ranks: the store's are 1-based, graph's indexes 0-based;
//   - errors: EUNAVAILABLE → graph.ErrUnavailable (UNAVAILABLE),
//     ENOTFOUND → graph.ErrNotFound (NOT_FOUND), the request's deadline →
//     itself (TIMEOUT).
package graphstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Source is a store.Store seen by the resolvers: pass it as both
// graph.Options.Boards and graph.Options.Stored.
//
// It keeps the rows of DONE boards in memory: a done board never changes
// (the store refuses to plan or fail it again), so its row is read from
// the database once per process. Every other row is read from the
// database each time, which is what lets boardProgress follow workers in
// other processes.
type Source struct {
	st    store.Store
	plans Plans    // nil: pending rows as the store has them
	done  sync.Map // int → graph.BoardStatus of a DONE board
}

// Plans says whether pending boards will keep their solutions. The
// store's row of a pending board has no plan yet (it says false): that
// was decided when the board was asked for, by whoever asked, and is kept
// with its job until a worker plans it.
type Plans interface {
	// StoresSolutions reports it for each of the pending boards ns.
	StoresSolutions(ctx context.Context, ns []int) (map[int]bool, error)
}

var (
	_ graph.BoardReader    = (*Source)(nil)
	_ graph.SolutionSource = (*Source)(nil)
)

// New returns the adapter over st.
func New(st store.Store) *Source { return &Source{st: st} }

// WithPlans makes the adapter report pending boards' storesSolutions as
// plans says. Call it before the adapter is used.
func (s *Source) WithPlans(plans Plans) *Source {
	s.plans = plans
	return s
}

// Store returns the store it adapts.
func (s *Source) Store() store.Store { return s.st }

// states maps the store's board states to the schema's.
var states = map[store.BoardState]graph.BoardState{
	store.Pending: graph.BoardStatePending,
	store.Running: graph.BoardStateRunning,
	store.Done:    graph.BoardStateDone,
	store.Failed:  graph.BoardStateFailed,
}

// Status converts a board row. The precompute's graph.Precomputer returns
// the rows it wrote through it, so that both read the same.
func Status(b store.Board) graph.BoardStatus {
	st := graph.BoardStatus{
		N:               b.N,
		State:           states[b.State],
		StoresSolutions: b.StoresSolutions,
		ChunksDone:      b.ChunksDone,
		ChunksTotal:     b.ChunksTotal,
		SolutionsFound:  b.SolutionsDone,
		// The store keeps no request time: a pending row's UpdatedAt is
		// when it was requested, and a board starts from its request.
		StartedAt:  b.StartedAt,
		FinishedAt: b.FinishedAt,
		UpdatedAt:  b.UpdatedAt,
		Error:      b.LastError,
	}
	if st.State == "" {
		st.State = graph.BoardStateUnknown
	}
	if b.State == store.Pending {
		st.RequestedAt = b.UpdatedAt
	}
	if b.State == store.Done && b.Counts != nil {
		c := *b.Counts
		st.Counts = &c
	}
	return st
}

// Board implements graph.BoardReader.
func (s *Source) Board(ctx context.Context, n int) (graph.BoardStatus, error) {
	if v, ok := s.done.Load(n); ok {
		return v.(graph.BoardStatus), nil
	}
	b, err := s.st.Board(ctx, n)
	if store.ErrorCode(err) == store.ENOTFOUND {
		return graph.BoardStatus{N: n, State: graph.BoardStateUnknown}, nil
	}
	if err != nil {
		return graph.BoardStatus{}, s.convert(ctx, err)
	}
	st := []graph.BoardStatus{s.remember(Status(b))}
	if err := s.planPending(ctx, st); err != nil {
		return graph.BoardStatus{}, err
	}
	return st[0], nil
}

// remember keeps the status of a DONE board.
func (s *Source) remember(st graph.BoardStatus) graph.BoardStatus {
	if st.State == graph.BoardStateDone {
		s.done.Store(st.N, st)
	}
	return st
}

// Boards implements graph.BoardReader.
func (s *Source) Boards(ctx context.Context) ([]graph.BoardStatus, error) {
	bs, err := s.st.Boards(ctx)
	if err != nil {
		return nil, s.convert(ctx, err)
	}
	out := make([]graph.BoardStatus, len(bs))
	for i, b := range bs {
		out[i] = s.remember(Status(b))
	}
	if err := s.planPending(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// planPending sets StoresSolutions of the pending boards among sts as the
// plans say. A board's job leaves the plans once a worker has planned the
// board, so its row is read again after them: a board still pending then
// was pending while they were read, and one no longer pending has its
// plan in its new row.
func (s *Source) planPending(ctx context.Context, sts []graph.BoardStatus) error {
	var pending []int
	for _, st := range sts {
		if st.State == graph.BoardStatePending {
			pending = append(pending, st.N)
		}
	}
	if s.plans == nil || len(pending) == 0 {
		return nil
	}
	stores, err := s.plans.StoresSolutions(ctx, pending)
	if err != nil {
		return s.convert(ctx, fmt.Errorf("reading how pending boards will be computed: %w", err))
	}
	for i := range sts {
		if sts[i].State != graph.BoardStatePending {
			continue
		}
		b, err := s.st.Board(ctx, sts[i].N)
		if err != nil {
			return s.convert(ctx, err)
		}
		if b.State != store.Pending {
			sts[i] = s.remember(Status(b))
			continue
		}
		sts[i].StoresSolutions = stores[sts[i].N]
	}
	return nil
}

// Page implements graph.SolutionSource with one keyset page of the store,
// next to After (forward) or Before (backward), cut at the other bound.
func (s *Source) Page(ctx context.Context, req graph.PageRequest) ([]solver.Placement, error) {
	if req.Limit <= 0 {
		return nil, nil
	}
	sr := store.PageRequest{N: req.N, Unique: req.Kind == graph.KindUnique, Direction: store.Forward, Cursor: req.After, Limit: req.Limit}
	if req.Backward {
		sr.Direction, sr.Cursor = store.Backward, req.Before
	}
	page, err := s.st.Page(ctx, sr)
	if err != nil {
		return nil, s.convert(ctx, err)
	}
	out := make([]solver.Placement, 0, len(page))
	for _, sol := range page { // ascending in both directions
		p := sol.Placement
		if req.Backward && req.After != nil && p.Compare(req.After) <= 0 {
			continue // at or before the window's start: a backward page ends there
		}
		if !req.Backward && req.Before != nil && p.Compare(req.Before) >= 0 {
			break // the window ends before it
		}
		out = append(out, p)
	}
	return out, nil
}

// At implements graph.SolutionSource: index i is the store's rank i+1.
func (s *Source) At(ctx context.Context, n int, kind graph.Kind, i uint64) (solver.Placement, error) {
	sol, err := s.st.SolutionAt(ctx, n, i+1, kind == graph.KindUnique)
	if err != nil {
		return nil, s.convert(ctx, err)
	}
	return sol.Placement, nil
}

// Index implements graph.SolutionSource: the store's rank minus one.
func (s *Source) Index(ctx context.Context, n int, kind graph.Kind, p solver.Placement) (uint64, error) {
	r, err := s.st.Rank(ctx, n, p, kind == graph.KindUnique)
	if err != nil {
		return 0, s.convert(ctx, err)
	}
	if r == 0 {
		return 0, fmt.Errorf("store: rank 0 for %v of N=%d (ranks are 1-based)", p, n)
	}
	return r - 1, nil
}

// convert turns a store error into what graph answers with: the request's
// own deadline or cancellation first (TIMEOUT), then the store's code.
func (s *Source) convert(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%w (store: %v)", ctxErr, err)
	}
	switch store.ErrorCode(err) {
	case store.EUNAVAILABLE:
		return fmt.Errorf("%w: %w", graph.ErrUnavailable, err)
	case store.ENOTFOUND:
		return fmt.Errorf("%w: %s", graph.ErrNotFound, store.ErrorMessage(err))
	case store.EINTERNAL:
		// A connection the database dropped (server restarted, network
		// cut) surfaces as a driver error the store does not classify,
		// until the pool next tries to connect; so does a store used after
		// Close. If the error says so, or the database does not answer a
		// ping now, it is down: UNAVAILABLE, not a bug.
		if lost(err) {
			return fmt.Errorf("%w: %w", graph.ErrUnavailable, err)
		}
		if perr := s.st.Ping(ctx); perr != nil && (store.ErrorCode(perr) == store.EUNAVAILABLE || lost(perr)) {
			return fmt.Errorf("%w: %w (ping: %v)", graph.ErrUnavailable, err, perr)
		}
	}
	return err
}

// lost reports errors that mean the connection to the database is gone
// rather than that a query went wrong: EOF or a reset in the middle of a
// conversation, or a store whose pool was closed (pgxpool says "closed
// pool", database/sql "sql: database is closed", neither with a type to
// test for).
func lost(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, net.ErrClosed) {
		return true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e.Error() {
		case "closed pool", "sql: database is closed":
			return true
		}
	}
	return false
}
