package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/nqueens/nqueens/solver"
)

// SolverSource is the SolutionSource of every N: it pages straight from
// the solver's ordered enumeration, so its pages and cursors are those of
// the store.
//
// The enumeration takes no context, so each search runs in its own
// goroutine and the caller stops waiting when its context ends (TIMEOUT).
// An abandoned page search runs on to its end (a page is at most the
// maximum page size plus one solution) and hands its result to done, so
// that the request asked again finds it cached; an abandoned walk for a
// rank stops at the next solution it meets. The searches running at once,
// abandoned ones included, are bounded by Concurrency.
type SolverSource struct {
	// RankWalkMaxN is the largest N whose ranks (At, Index) are found by
	// walking the listing from its start: N=14 walks its 365,596 solutions
	// in about 0.25 s on one core; N=15's 2,279,184 take 1.6 s.
	RankWalkMaxN int

	sem  chan struct{}
	done func(req PageRequest, page []solver.Placement) // a page search finished, maybe after its caller left
}

// NewSolverSource returns a solver source running at most concurrency
// searches at once (0: GOMAXPROCS) and walking ranks up to rankWalkMaxN.
func NewSolverSource(concurrency, rankWalkMaxN int) *SolverSource {
	if concurrency <= 0 {
		concurrency = runtime.GOMAXPROCS(0)
	}
	return &SolverSource{RankWalkMaxN: rankWalkMaxN, sem: make(chan struct{}, concurrency)}
}

// run runs search in a goroutine holding a slot of the semaphore and waits
// for it or for ctx. stop tells search its caller has gone.
func run[T any](ctx context.Context, s *SolverSource, what string, search func(stop *atomic.Bool) (T, error)) (T, error) {
	var zero T
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return zero, timeoutError(ctx, what+": every solver slot stayed busy")
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	stop := new(atomic.Bool)
	go func() {
		defer func() { <-s.sem }()
		v, err := search(stop)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		stop.Store(true)
		return zero, timeoutError(ctx, what)
	}
}

func timeoutError(ctx context.Context, what string) error {
	if ctx.Err() == context.Canceled {
		return ctx.Err()
	}
	return &Error{Code: CodeTimeout, Err: ctx.Err(),
		Message: what + " did not finish within the request's time budget; ask for a smaller page, or precompute the board to page it from the store"}
}

// Page implements SolutionSource.
func (s *SolverSource) Page(ctx context.Context, req PageRequest) ([]solver.Placement, error) {
	if req.Limit <= 0 {
		return nil, nil
	}
	what := fmt.Sprintf("listing solutions of N=%d with the solver", req.N)
	return run(ctx, s, what, func(*atomic.Bool) ([]solver.Placement, error) {
		page := solverPage(req)
		if s.done != nil {
			s.done(req, page)
		}
		return page, nil
	})
}

// solverPage computes a page: the first Limit solutions after After
// (stopping at Before) or the last Limit before Before (stopping at After).
func solverPage(req PageRequest) []solver.Placement {
	var seq iter.Seq[solver.Placement]
	switch {
	case req.Backward && req.Kind == KindUnique:
		seq = solver.UniqueDescending(req.N, req.Before)
	case req.Backward:
		seq = solver.Descending(req.N, req.Before)
	case req.Kind == KindUnique:
		seq = solver.UniqueAscending(req.N, req.After)
	default:
		seq = solver.Ascending(req.N, req.After)
	}
	var out []solver.Placement
	for p := range seq {
		if req.Backward && req.After != nil && p.Compare(req.After) <= 0 ||
			!req.Backward && req.Before != nil && p.Compare(req.Before) >= 0 {
			break
		}
		out = append(out, p.Clone())
		if len(out) == req.Limit {
			break
		}
	}
	if req.Backward {
		slices.Reverse(out)
	}
	return out
}

// errNoWalk is wrapped by At and Index for a board too large to walk.
var errNoWalk = errors.New("board too large to rank by walking")

// walkable refuses ranks of boards too large to walk.
func (s *SolverSource) walkable(n int) error {
	if n > s.RankWalkMaxN {
		return &Error{Code: CodeUnavailable, Err: errNoWalk, Message: fmt.Sprintf("ranks of N=%d are known once the board is precomputed into the store; "+
			"until then the server finds ranks by walking the solutions from the first, which it does only for N up to %d", n, s.RankWalkMaxN)}
	}
	return nil
}

func listing(n int, kind Kind) iter.Seq[solver.Placement] {
	if kind == KindUnique {
		return solver.AllUnique(n)
	}
	return solver.All(n)
}

// At implements SolutionSource by walking the listing to index i.
func (s *SolverSource) At(ctx context.Context, n int, kind Kind, i uint64) (solver.Placement, error) {
	if err := s.walkable(n); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("finding solution #%d of N=%d with the solver", i+1, n)
	return run(ctx, s, what, func(stop *atomic.Bool) (solver.Placement, error) {
		var k uint64
		for p := range listing(n, kind) {
			if stop.Load() {
				return nil, context.Canceled
			}
			if k == i {
				return p.Clone(), nil
			}
			k++
		}
		return nil, fmt.Errorf("%w: the %s listing of N=%d has %d items", ErrNotFound, kind, n, k)
	})
}

// Index implements SolutionSource by walking the listing up to p.
func (s *SolverSource) Index(ctx context.Context, n int, kind Kind, p solver.Placement) (uint64, error) {
	if err := s.walkable(n); err != nil {
		return 0, err
	}
	what := fmt.Sprintf("ranking a solution of N=%d with the solver", n)
	return run(ctx, s, what, func(stop *atomic.Bool) (uint64, error) {
		var k uint64
		for q := range listing(n, kind) {
			if stop.Load() {
				return 0, context.Canceled
			}
			if q.Compare(p) >= 0 {
				break
			}
			k++
		}
		return k, nil
	})
}
