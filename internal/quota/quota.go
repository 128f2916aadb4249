// Package quota shares one resource of the server (connections,
// websockets, exports, bytes of requests in flight) between its clients:
// each client may hold up to its share, and all clients together up to
// the total. The share comes first, so that one client, however many
// connections it opens, can never take what another client needs; the
// total bounds what many clients together may hold.
//
// A Pool counts units (a connection is 1, a request's memory its bytes).
// Take refuses at once when a bound is reached; Wait waits for room until
// its context ends. Either way a refusal is a *Refusal that says which
// bound refused: the client's share (answer 429) or the total (503).
package quota

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Scope is the bound that refused a request for units.
type Scope int

const (
	// Share is the client's own share: the client holds as much as one
	// client may, others are not affected (HTTP 429).
	Share Scope = iota + 1
	// Total is the pool's total: every client together holds as much as
	// the server gives (HTTP 503).
	Total
)

func (s Scope) String() string {
	switch s {
	case Share:
		return "client"
	case Total:
		return "total"
	}
	return "none"
}

// Refusal is the error of a request for units that did not fit.
type Refusal struct {
	Pool  string // the pool's name, e.g. "exports"
	Scope Scope
	// Share and Total are the pool's bounds, Asked what was asked for.
	Share, Total, Asked int64
}

func (r *Refusal) Error() string {
	if r.Scope == Share {
		return fmt.Sprintf("%s: the client holds its share of %d", r.Pool, r.Share)
	}
	return fmt.Sprintf("%s: the server's total of %d is in use", r.Pool, r.Total)
}

// Pool is one resource shared between clients. The zero value is not
// usable: make one with New. It is safe for concurrent use.
type Pool struct {
	name          string
	share, total  int64
	lightestFirst bool // LightestFirst

	mu      sync.Mutex
	held    map[string]int64 // by client; absent when 0
	sum     int64
	waiters []*waiter // in arrival order

	refusedShare, refusedTotal atomic.Int64
}

type waiter struct {
	client string
	n      int64
	ready  chan struct{} // closed once the units are granted
}

// New returns a pool called name (for messages and metrics) of total
// units, of which each client may hold share. share is at most total.
func New(name string, share, total int64, opts ...Option) *Pool {
	if share < 1 || total < share {
		panic(fmt.Sprintf("quota.New(%q): share %d and total %d: want 1 <= share <= total", name, share, total))
	}
	p := &Pool{name: name, share: share, total: total, held: map[string]int64{}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Option changes how a pool serves its waiters.
type Option func(*Pool)

// LightestFirst serves the waiters for the total by what their client
// would hold once served, least first (then in the order they came), and
// lets a newcomer take units that fit unless a waiter at most as heavy
// waits: a client asking for little, or holding little, is not held up
// behind clients asking for much. A heavy request may then wait until its
// context ends, and is refused: under pressure the heaviest are shed
// first. For the memory of requests in flight, where one answer may need
// megabytes and another a few kilobytes.
func LightestFirst() Option { return func(p *Pool) { p.lightestFirst = true } }

// Name is the pool's name.
func (p *Pool) Name() string { return p.name }

// Share is what one client may hold.
func (p *Pool) Share() int64 { return p.share }

// Total is what all clients together may hold.
func (p *Pool) Total() int64 { return p.total }

// Held is what all clients hold now.
func (p *Pool) Held() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sum
}

// HeldBy is what client holds now.
func (p *Pool) HeldBy(client string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held[client]
}

// Clients is how many clients hold units now.
func (p *Pool) Clients() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}

// Waiting is how many requests wait for units now.
func (p *Pool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.waiters)
}

// Refused is how many requests each bound has refused since the pool was
// made.
func (p *Pool) Refused() (share, total int64) {
	return p.refusedShare.Load(), p.refusedTotal.Load()
}

// fits says which bound n more units of client would pass, 0 for none.
// Waiters come first: a newcomer does not take units before those that
// wait for them. Under p.mu.
func (p *Pool) fits(client string, n int64) Scope {
	switch {
	case p.held[client]+n > p.share:
		return Share
	case p.sum+n > p.total:
		return Total
	}
	return 0
}

func (p *Pool) grant(client string, n int64) {
	p.held[client] += n
	p.sum += n
}

// refuse counts a refusal and returns its error.
func (p *Pool) refuse(scope Scope, n int64) *Refusal {
	if scope == Share {
		p.refusedShare.Add(1)
	} else {
		p.refusedTotal.Add(1)
	}
	return &Refusal{Pool: p.name, Scope: scope, Share: p.share, Total: p.total, Asked: n}
}

// Take takes n units for client if both bounds allow it now, else
// refuses at once. It does not pass clients that wait for the total: while
// one does, Take refuses with Total.
func (p *Pool) Take(client string, n int64) (*Hold, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	scope := p.fits(client, n)
	if scope == 0 && p.queued(client, n) {
		scope = Total
	}
	if scope != 0 {
		return nil, p.refuse(scope, n)
	}
	p.grant(client, n)
	return &Hold{p: p, client: client, n: n}, nil
}

// queued reports whether a waiter waits for the total (not for its own
// share) that n more units of client may not pass: any, or under
// LightestFirst one at most as heavy. Under p.mu.
func (p *Pool) queued(client string, n int64) bool {
	for _, w := range p.waiters {
		if p.fits(w.client, w.n) == Total && (!p.lightestFirst || p.weight(w) <= p.held[client]+n) {
			return true
		}
	}
	return false
}

// weight is what w's client would hold once w is served. Under p.mu.
func (p *Pool) weight(w *waiter) int64 { return p.held[w.client] + w.n }

// Wait takes n units for client, waiting while a bound refuses them,
// until ctx ends or d has passed (no bound: 0); then it refuses with the
// bound that held it up. n more than the share is refused at once.
// Waiters for the total are served in the order they came (a large
// request is not passed for ever by small ones); a waiter for its own
// client's share holds up nobody else. Units granted at once cost no
// timer: the common case of a request's admission.
func (p *Pool) Wait(ctx context.Context, client string, n int64, d time.Duration) (*Hold, error) {
	p.mu.Lock()
	if n > p.share {
		defer p.mu.Unlock()
		return nil, p.refuse(Share, n)
	}
	if p.fits(client, n) == 0 && !p.queued(client, n) {
		p.grant(client, n)
		p.mu.Unlock()
		return &Hold{p: p, client: client, n: n}, nil
	}
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	w := &waiter{client: client, n: n, ready: make(chan struct{})}
	p.waiters = append(p.waiters, w)
	p.wake() // the queue may hold only waiters of full shares
	p.mu.Unlock()

	select {
	case <-w.ready:
		return &Hold{p: p, client: client, n: n}, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-w.ready: // granted as ctx ended: keep it
		return &Hold{p: p, client: client, n: n}, nil
	default:
	}
	for i, x := range p.waiters {
		if x == w {
			p.waiters = append(p.waiters[:i:i], p.waiters[i+1:]...)
			break
		}
	}
	scope := p.fits(client, n)
	if scope == 0 {
		scope = Total // it fits now, but others were ahead of it
	}
	p.wake() // its leaving may let another through
	return nil, p.refuse(scope, n)
}

// wake grants the waiters that fit, in order (under LightestFirst,
// lightest first), up to the first that waits for the total. Under p.mu.
func (p *Pool) wake() {
	order := p.waiters
	if p.lightestFirst && len(order) > 1 {
		order = slices.Clone(order)
		weights := make(map[*waiter]int64, len(order))
		for _, w := range order {
			weights[w] = p.weight(w)
		}
		slices.SortStableFunc(order, func(a, b *waiter) int { return cmp.Compare(weights[a], weights[b]) })
	}
	granted := false
	blocked := false
	for _, w := range order {
		if blocked {
			break
		}
		switch p.fits(w.client, w.n) {
		case 0:
			p.grant(w.client, w.n)
			close(w.ready)
			granted = true
		case Total:
			blocked = true
		}
	}
	if !granted {
		return
	}
	kept := p.waiters[:0]
	for _, w := range p.waiters {
		select {
		case <-w.ready:
		default:
			kept = append(kept, w)
		}
	}
	clear(p.waiters[len(kept):])
	p.waiters = kept
}

// release gives back n units of client.
func (p *Pool) release(client string, n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held[client] -= n
	if p.held[client] <= 0 {
		delete(p.held, client)
	}
	p.sum -= n
	p.wake()
}

// Hold is units a client holds; Release gives them back.
type Hold struct {
	p      *Pool
	client string
	mu     sync.Mutex
	n      int64 // 0 once released
}

// Units is how many units h holds.
func (h *Hold) Units() int64 {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// Grow takes n more units for the same client, waiting as Wait does (at
// most d). What would take h past the share is refused at once.
func (h *Hold) Grow(ctx context.Context, n int64, d time.Duration) error {
	if n <= 0 {
		return nil
	}
	if h.Units()+n > h.p.share {
		return h.p.refuse(Share, h.Units()+n)
	}
	more, err := h.p.Wait(ctx, h.client, n, d)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.n += more.n
	h.mu.Unlock()
	return nil
}

// Release gives every unit of h back, once; later calls do nothing. A nil
// Hold may be released.
func (h *Hold) Release() {
	if h == nil {
		return
	}
	h.mu.Lock()
	n := h.n
	h.n = 0
	h.mu.Unlock()
	if n > 0 {
		h.p.release(h.client, n)
	}
}
