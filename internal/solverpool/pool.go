// Package solverpool runs the solver for API requests: a fixed number of
// slots (one per core) shared fairly between clients, a queue bounded per
// client, a budget of solver time per GraphQL operation shared by its
// fields, and the solver-backed listing of every N (pages, ranks,
// solutions by rank), filtered pages and counts, tallies and completions
// on top of it.
package solverpool

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Pool is the listing of every N (graph.Listing): it pages straight from
// the solver's ordered enumeration, so its pages and cursors are those of
// the store. Its solutions carry N and Placement (and Rank from
// SolutionAt), which is what the resolvers read.
//
// Every search runs in the caller's goroutine on one of the solver's
// slots (solverShare: one per core, shared fairly between clients), each
// client with at most its share of searches waiting or running (queue), and
// stops when the caller's context ends or its operation's solver budget
// is spent (solver.Page calls a checkpoint every few thousand nodes; the
// rank walks between solutions), answering TIMEOUT. Nothing outlives its
// request, so a flood of expensive searches (unique pages of a large N,
// which can take hours) costs at most their budgets, and one client's
// searches delay another's by about a quantum.
type Pool struct {
	rankWalkMaxN int
	budget       time.Duration
	share        *solverShare
	queue        *quota.Pool // searches waiting or running, per client (apierror.PoolSolver)
}

// Config sizes a Pool.
type Config struct {
	// Slots bounds the searches running at once (at least 1).
	Slots int
	// Quantum is how long a search keeps its slot while others wait for
	// one: about what one client's heavy request may delay another's.
	Quantum time.Duration
	// Budget is the solver time an operation may spend, all its fields
	// together.
	Budget time.Duration
	// RankWalkMaxN is the largest N whose ranks (SolutionAt, Rank) are
	// found by walking the listing from its start: N=14 walks its 365,596
	// solutions in about 0.25 s on one core; N=15's 2,279,184 take 1.6 s.
	RankWalkMaxN int
	// QueuePerClient bounds the searches one client has waiting or
	// running (at least 1); all clients together QueueTotal.
	QueuePerClient int
}

// New returns a pool as c says.
func New(c Config) *Pool {
	return &Pool{rankWalkMaxN: c.RankWalkMaxN, budget: c.Budget, share: newSolverShare(c.Slots, c.Quantum),
		queue: quota.New(apierror.PoolSolver, int64(c.QueuePerClient), int64(QueueTotal(c.Slots, c.Quantum, c.QueuePerClient)))}
}

// Queue is the quota of the searches waiting for a slot or running on
// one, per client and in total, for metrics.
func (s *Pool) Queue() *quota.Pool { return s.queue }

// QueueTotal is how many searches all clients together may have
// waiting for the solver or running on it: queuePerClient for each of the
// clients that a turn of every client in a second serves (slots a
// quantum each). Turns go client by client, so with more clients waiting
// than that, a newcomer's search would wait over a second for its turn:
// it is refused (UNAVAILABLE) instead. Two cores: 100 clients, 800
// searches.
func QueueTotal(slots int, quantum time.Duration, queuePerClient int) int {
	return queuePerClient * max(1, slots*int(time.Second/quantum))
}

// errBudget is wrapped by the error of a search stopped by its
// operation's budget.
var errBudget = errors.New("solver budget spent")

// search runs fn on a solver slot for ctx's operation. fn calls
// checkpoint between steps of its search: it returns an error when the
// search must stop (ctx ended, the budget is spent), and may hand the
// slot to a waiting client and wait for the next turn.
func (s *Pool) search(ctx context.Context, what string, fn func(checkpoint func() error) error) error {
	op := s.operationOf(ctx)
	// An operation's fields search one at a time: its budget is then the
	// time it holds a slot, and it holds one slot at most.
	select {
	case <-op.turn:
		defer func() { op.turn <- struct{}{} }()
	case <-ctx.Done():
		return waitError(ctx, what, "the request's other fields held the solver until then")
	}
	if op.remaining() <= 0 {
		return budgetError(what, op.budget)
	}
	// A client waits for its turns, never for more than its share of
	// the queue: past it the field is refused now, not late.
	queued, err := s.queue.Take(op.client, 1)
	if err != nil {
		return apierror.Refused(err.(*quota.Refusal))
	}
	defer queued.Release()
	if err := s.share.acquire(ctx, op.client); err != nil {
		return waitError(ctx, what, "every solver slot stayed busy with other requests")
	}
	holding, since := true, time.Now()
	defer func() {
		if holding {
			op.spend(time.Since(since))
			s.share.release()
		}
	}()
	checkpoint := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		held := time.Since(since)
		if held >= op.remaining() {
			return errBudget
		}
		if held < s.share.quantum || !s.share.contended() {
			return nil
		}
		op.spend(held)
		s.share.release()
		holding = false
		if err := s.share.acquire(ctx, op.client); err != nil {
			return err
		}
		holding, since = true, time.Now()
		return nil
	}
	err = fn(checkpoint)
	switch {
	case errors.Is(err, errBudget):
		return budgetError(what, op.budget)
	case err != nil:
		return searchError(ctx, what, err)
	}
	return nil
}

func budgetError(what string, budget time.Duration) error {
	return &apierror.Error{Code: apierror.Timeout, Err: errBudget, Message: fmt.Sprintf("%s stopped: the request used up its solver time of %s, shared by all of its fields; "+
		"ask for fewer or smaller pages, or precompute the board to page it from the store", what, budget)}
}

// operationOf returns ctx's operation; a context without one (the pool
// used outside a GraphQL operation) gets one of its own, of no client.
func (s *Pool) operationOf(ctx context.Context) *operation {
	if op, ok := ctx.Value(operationKey{}).(*operation); ok {
		return op
	}
	return newOperation("", s.budget)
}

// searchError turns the error of a search stopped by its context into
// TIMEOUT (or the cancellation, when the client went away).
func searchError(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
		return timeoutError(ctx, what)
	}
	return err
}

// waitError is the error of a search that never started: why says what
// held it up.
func waitError(ctx context.Context, what, why string) error {
	if ctx.Err() == context.Canceled {
		return ctx.Err()
	}
	return &apierror.Error{Code: apierror.Timeout, Err: ctx.Err(),
		Message: what + " did not start within the request's time budget: " + why + "; try again, or precompute the board to page it from the store"}
}

func timeoutError(ctx context.Context, what string) error {
	if ctx.Err() == context.Canceled {
		return ctx.Err()
	}
	return &apierror.Error{Code: apierror.Timeout, Err: ctx.Err(),
		Message: what + " did not finish within the request's time budget; ask for a smaller page, or precompute the board to page it from the store"}
}

// Page implements graph.Listing with solver.Page: the first Limit
// solutions after the cursor, or the last Limit before it.
func (s *Pool) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	return s.FilteredPage(ctx, req, solver.Filter{})
}

// FilteredPage is Page restricted to what f matches (solver.PageQuery's
// Filter): same order, same cursors.
func (s *Pool) FilteredPage(ctx context.Context, req store.PageRequest, f solver.Filter) ([]store.Solution, error) {
	if req.Limit <= 0 {
		return nil, nil
	}
	what := fmt.Sprintf("listing solutions of N=%d with the solver", req.N)
	if !f.IsZero() {
		what = fmt.Sprintf("listing the solutions of N=%d that match the filter with the solver", req.N)
	}
	q := solver.PageQuery{N: req.N, Cursor: req.Cursor, Limit: req.Limit, Unique: req.Unique, Backward: req.Direction == store.Backward, Filter: f}
	var page []solver.Placement
	err := s.search(ctx, what, func(checkpoint func() error) error {
		q.Checkpoint = checkpoint
		var err error
		page, err = solver.Page(ctx, q)
		return err
	})
	if err != nil {
		return nil, err
	}
	sols := make([]store.Solution, len(page))
	for i, p := range page {
		sols[i] = store.Solution{N: req.N, Placement: p}
	}
	return sols, nil
}

// ErrNoWalk is wrapped by the error of a rank (SolutionAt, Rank, Walk)
// of a board too large to walk.
var ErrNoWalk = errors.New("board too large to rank by walking")

// walkable refuses ranks of boards too large to walk.
func (s *Pool) walkable(n int) error {
	if n > s.rankWalkMaxN {
		return &apierror.Error{Code: apierror.Unavailable, Err: ErrNoWalk, Message: fmt.Sprintf("ranks of N=%d are known once the board is precomputed into the store; "+
			"until then the server finds ranks by walking the solutions from the first, which it does only for N up to %d", n, s.rankWalkMaxN)}
	}
	return nil
}

// walkCheckEvery is how many solutions a rank walk lists between looks at
// its context. Up to RankWalkMaxN (14 by default) solutions are dense:
// a few microseconds apart, unique ones included.
const walkCheckEvery = 1024

// Walk calls visit with each item of the listing of N (unique: its
// canonical solutions), in order, until visit returns false, on a solver
// slot, stopping with TIMEOUT when ctx ends or the operation's budget is
// spent.
func (s *Pool) Walk(ctx context.Context, what string, n int, unique bool, visit func(p solver.Placement) bool) error {
	if err := s.walkable(n); err != nil {
		return err
	}
	return s.search(ctx, what, func(checkpoint func() error) error {
		var seq iter.Seq[solver.Placement]
		if unique {
			seq = solver.AllUnique(n)
		} else {
			seq = solver.All(n)
		}
		k := 0
		for p := range seq {
			if k++; k%walkCheckEvery == 0 {
				if err := checkpoint(); err != nil {
					return err
				}
			}
			if !visit(p) {
				break
			}
		}
		return nil
	})
}

// WalkChunk calls visit with each item of chunk c's part of the listing
// (unique: its canonical solutions), in order, until visit returns false,
// on a solver slot, stopping with TIMEOUT when ctx ends or the operation's
// budget is spent. Unlike Walk it takes any N: the chunks of a rank index
// are small (solver.RankChunkDepth), and the budget bounds the rest.
func (s *Pool) WalkChunk(ctx context.Context, what string, c solver.Chunk, unique bool, visit func(p solver.Placement) bool) error {
	return s.search(ctx, what, func(checkpoint func() error) error {
		var stopped error
		check := func() bool {
			stopped = checkpoint()
			return stopped == nil
		}
		for p := range c.Walk(unique, check) {
			if !visit(p) {
				break
			}
		}
		return stopped
	})
}

// SolutionAt implements graph.Listing by walking the listing to rank.
func (s *Pool) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error) {
	if rank == 0 {
		return store.Solution{}, nqueens.Errorf(nqueens.EINVALID, "ranks count from 1 (the first solution in lexicographic order), got 0")
	}
	found, k, err := solver.Nth(rank, func(visit func(solver.Placement) bool) error {
		return s.Walk(ctx, fmt.Sprintf("finding solution #%d of N=%d with the solver", rank, n), n, unique, visit)
	})
	switch {
	case err != nil:
		return store.Solution{}, err
	case found == nil:
		return store.Solution{}, nqueens.Errorf(nqueens.ENOTFOUND, "the listing of N=%d (unique %t) has %d items", n, unique, k)
	}
	return store.Solution{N: n, Placement: found, Rank: rank}, nil
}

// Rank implements graph.Listing by walking the listing up to p.
func (s *Pool) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	var before uint64
	err := s.Walk(ctx, fmt.Sprintf("ranking a solution of N=%d with the solver", n), n, unique, func(q solver.Placement) bool {
		if q.Compare(p) >= 0 {
			return false
		}
		before++
		return true
	})
	return before + 1, err
}
