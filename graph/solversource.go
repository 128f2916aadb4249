package graph

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"

	"github.com/nqueens/nqueens/solver"
)

// SolverSource is the SolutionSource of every N: it pages straight from
// the solver's ordered enumeration, so its pages and cursors are those of
// the store.
//
// Every search runs in the caller's goroutine and stops when the caller's
// context ends (solver.Page checks it every few thousand nodes; the rank
// walks between solutions), answering TIMEOUT past the request's time
// budget. Nothing outlives its request, so a flood of expensive searches
// (unique pages of a large N, which can take hours) costs at most their
// time budgets. At most Concurrency searches run at once; a request that
// cannot get a slot within its budget gets TIMEOUT too.
type SolverSource struct {
	// RankWalkMaxN is the largest N whose ranks (At, Index) are found by
	// walking the listing from its start: N=14 walks its 365,596 solutions
	// in about 0.25 s on one core; N=15's 2,279,184 take 1.6 s.
	RankWalkMaxN int

	sem chan struct{}
}

// NewSolverSource returns a solver source running at most concurrency
// searches at once (0: GOMAXPROCS) and walking ranks up to rankWalkMaxN.
func NewSolverSource(concurrency, rankWalkMaxN int) *SolverSource {
	if concurrency <= 0 {
		concurrency = runtime.GOMAXPROCS(0)
	}
	return &SolverSource{RankWalkMaxN: rankWalkMaxN, sem: make(chan struct{}, concurrency)}
}

// acquire takes a search slot, or gives up when ctx ends first.
func (s *SolverSource) acquire(ctx context.Context, what string) (release func(), err error) {
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem }, nil
	case <-ctx.Done():
		return nil, timeoutError(ctx, what+": every solver slot stayed busy")
	}
}

// searchError turns the error of a search stopped by its context into
// TIMEOUT (or the cancellation, when the client went away).
func searchError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return timeoutError(ctx, what)
	}
	return err
}

func timeoutError(ctx context.Context, what string) error {
	if ctx.Err() == context.Canceled {
		return ctx.Err()
	}
	return &Error{Code: CodeTimeout, Err: ctx.Err(),
		Message: what + " did not finish within the request's time budget; ask for a smaller page, or precompute the board to page it from the store"}
}

// Page implements SolutionSource with solver.Page: the first Limit
// solutions after After (stopping short of Before), or the last Limit
// before Before (stopping short of After).
func (s *SolverSource) Page(ctx context.Context, req PageRequest) ([]solver.Placement, error) {
	if req.Limit <= 0 {
		return nil, nil
	}
	what := fmt.Sprintf("listing solutions of N=%d with the solver", req.N)
	release, err := s.acquire(ctx, what)
	if err != nil {
		return nil, err
	}
	defer release()
	q := solver.PageQuery{N: req.N, Cursor: req.After, Stop: req.Before, Limit: req.Limit, Unique: req.Kind == KindUnique}
	if req.Backward {
		q.Cursor, q.Stop, q.Backward = req.Before, req.After, true
	}
	page, err := solver.Page(ctx, q)
	if err != nil {
		return nil, searchError(ctx, what, err)
	}
	return page, nil
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

// walkCheckEvery is how many solutions a rank walk lists between looks at
// its context. Up to RankWalkMaxN (14 by default) solutions are dense:
// a few microseconds apart, unique ones included.
const walkCheckEvery = 1024

// walk calls visit with each item of listing kind of N, in order, until
// visit returns false, holding a search slot and stopping with TIMEOUT
// when ctx ends.
func (s *SolverSource) walk(ctx context.Context, what string, n int, kind Kind, visit func(p solver.Placement) bool) error {
	if err := s.walkable(n); err != nil {
		return err
	}
	release, err := s.acquire(ctx, what)
	if err != nil {
		return err
	}
	defer release()
	var seq iter.Seq[solver.Placement]
	if kind == KindUnique {
		seq = solver.AllUnique(n)
	} else {
		seq = solver.All(n)
	}
	k := 0
	for p := range seq {
		if k++; k%walkCheckEvery == 0 && ctx.Err() != nil {
			return searchError(ctx, what, ctx.Err())
		}
		if !visit(p) {
			break
		}
	}
	return nil
}

// At implements SolutionSource by walking the listing to index i.
func (s *SolverSource) At(ctx context.Context, n int, kind Kind, i uint64) (solver.Placement, error) {
	var (
		k     uint64
		found solver.Placement
	)
	err := s.walk(ctx, fmt.Sprintf("finding solution #%d of N=%d with the solver", i+1, n), n, kind, func(p solver.Placement) bool {
		if k == i {
			found = p.Clone()
			return false
		}
		k++
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case found == nil:
		return nil, fmt.Errorf("%w: the %s listing of N=%d has %d items", ErrNotFound, kind, n, k)
	}
	return found, nil
}

// Index implements SolutionSource by walking the listing up to p.
func (s *SolverSource) Index(ctx context.Context, n int, kind Kind, p solver.Placement) (uint64, error) {
	var k uint64
	err := s.walk(ctx, fmt.Sprintf("ranking a solution of N=%d with the solver", n), n, kind, func(q solver.Placement) bool {
		if q.Compare(p) >= 0 {
			return false
		}
		k++
		return true
	})
	return k, err
}
