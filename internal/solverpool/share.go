package solverpool

import (
	"context"
	"errors"
	"sync"
	"time"
)

// solverShare hands the solver's slots (one per core by default) to the
// requests that search, fairly between clients.
//
// Waiting requests are queued per client and served in turn, one client
// after the other, so that a client with many requests waiting gets no
// more turns than one with a single request. A search that holds a slot
// gives it up at its next checkpoint once it has held it for a quantum
// while others wait, and queues again behind them: a small query beside
// heavy ones waits about a quantum, not for the heavy ones to end.
type solverShare struct {
	slots   int
	quantum time.Duration

	mu      sync.Mutex
	busy    int
	waiting map[string][]*slotWaiter // per client, first come first served
	turns   []string                 // clients with waiters, in the order they are served
}

type slotWaiter struct {
	ready   chan struct{} // closed when the slot is handed over
	granted bool          // under mu
}

func newSolverShare(slots int, quantum time.Duration) *solverShare {
	return &solverShare{slots: slots, quantum: quantum, waiting: map[string][]*slotWaiter{}}
}

// acquire takes a slot for client, waiting its turn, or gives up when ctx
// ends first.
func (s *solverShare) acquire(ctx context.Context, client string) error {
	s.mu.Lock()
	if s.busy < s.slots && len(s.turns) == 0 {
		s.busy++
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{ready: make(chan struct{})}
	if len(s.waiting[client]) == 0 {
		s.turns = append(s.turns, client)
	}
	s.waiting[client] = append(s.waiting[client], w)
	s.mu.Unlock()

	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if w.granted {
		s.mu.Unlock()
		s.release() // handed over as ctx ended: pass it on
		return ctx.Err()
	}
	q := s.waiting[client]
	for i, x := range q {
		if x == w {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(s.waiting, client)
		for i, c := range s.turns {
			if c == client {
				s.turns = append(s.turns[:i:i], s.turns[i+1:]...)
				break
			}
		}
	} else {
		s.waiting[client] = q
	}
	s.mu.Unlock()
	return ctx.Err()
}

// release gives a slot back: to the first waiter of the client whose turn
// it is, or to the pool.
func (s *solverShare) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.turns) == 0 {
		s.busy--
		return
	}
	client := s.turns[0]
	s.turns = s.turns[1:]
	q := s.waiting[client]
	w := q[0]
	if len(q) == 1 {
		delete(s.waiting, client)
	} else {
		s.waiting[client] = q[1:]
		s.turns = append(s.turns, client)
	}
	w.granted = true
	close(w.ready)
}

// contended reports whether requests wait for a slot.
func (s *solverShare) contended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) > 0
}

// operation is what one GraphQL operation (a request, or one operation on
// a websocket) has of the solver: its client, its budget of solver time
// across all of its fields, and the answers its fields share.
type operation struct {
	client string
	budget time.Duration

	turn chan struct{} // holds one token: a request searches on one slot at a time
	mu   sync.Mutex
	used time.Duration // under mu
	memo map[any]*memoCall
}

type memoCall struct {
	done chan struct{}
	val  any
	err  error
}

type operationKey struct{}

// errMemoPanicked is what the other fields get when the field computing
// their shared answer panicked.
var errMemoPanicked = errors.New("the search shared with another field failed")

// WithOperation returns a context for one GraphQL operation of client
// (the transport's name for who sends it: fields of all clients share
// the slots fairly): the fields it resolves share a budget of solver
// time and compute identical searches once. The transport calls it for
// every query and mutation.
func (p *Pool) WithOperation(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, operationKey{}, newOperation(client, p.budget))
}

// ClientOf is the client of ctx's operation (WithOperation), "" outside
// one: the caches of the API share their room by it.
func ClientOf(ctx context.Context) string {
	if op, ok := ctx.Value(operationKey{}).(*operation); ok {
		return op.client
	}
	return ""
}

// Once computes fn once per key in ctx's operation: identical fields of
// one request (aliases asking the same page, say) share one search.
func (p *Pool) Once(ctx context.Context, key any, fn func() (any, error)) (any, error) {
	return p.operationOf(ctx).once(key, fn)
}

func newOperation(client string, budget time.Duration) *operation {
	op := &operation{client: client, budget: budget, turn: make(chan struct{}, 1), memo: map[any]*memoCall{}}
	op.turn <- struct{}{}
	return op
}

// once computes fn once per key in an operation: identical fields of one
// request (aliases asking the same page, say) share one search.
func (op *operation) once(key any, fn func() (any, error)) (any, error) {
	op.mu.Lock()
	c, ok := op.memo[key]
	if !ok {
		c = &memoCall{done: make(chan struct{})}
		op.memo[key] = c
	}
	op.mu.Unlock()
	if ok {
		<-c.done
		return c.val, c.err
	}
	defer close(c.done)
	c.err = errMemoPanicked // unless fn returns
	c.val, c.err = fn()
	return c.val, c.err
}

// remaining is what is left of the operation's solver budget.
func (op *operation) remaining() time.Duration {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.budget - op.used
}

func (op *operation) spend(d time.Duration) {
	op.mu.Lock()
	op.used += d
	op.mu.Unlock()
}
