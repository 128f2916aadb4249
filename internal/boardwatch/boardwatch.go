// Package boardwatch follows boards for their subscribers (the
// boardProgress subscription): one watcher per board, whatever the number
// of its subscribers, fanned out to all of them. What a board costs
// depends on its state, never on how many follow it:
//
//   - A subscriber gets the board's state at once: the watcher's latest
//     read when it is polling the board, else a read of its own.
//   - A DONE board never changes: its subscribers get it and their
//     channels close right after.
//   - A board being computed (PENDING or RUNNING) is read by one poller
//     every PollInterval while it has subscribers, and each change is sent
//     to all of them. The poller stops once the board is done (or no
//     longer computed) or has lost its last subscriber.
//   - A board nobody computes (UNKNOWN, FAILED) is not polled at all. Its
//     subscribers wait for a notification: Poke (this process asked for
//     the board) makes the watcher read it at once and poll it if it is
//     now computed; and one slow sweep, a single read of every board's
//     row every SweepInterval, runs while some board has idle subscribers
//     and none when there are none, so that work asked for by another
//     process is noticed within SweepInterval.
//
// A subscriber's channel holds one value, the latest: a slow subscriber
// never blocks the poller nor the others, it misses intermediate states
// (latest wins). Sending needs no goroutine per subscriber; a subscriber
// leaves when its context ends.
package boardwatch

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nqueens/nqueens/store"
)

// Config is what a Hub reads boards with and how often.
type Config[T any] struct {
	// Read reads board N as subscribers see it (Unknown when the store
	// has no row for it).
	Read func(ctx context.Context, n int) (store.Board, error)
	// ReadAll reads every board's row at once, for the sweep; a board
	// without a row is Unknown.
	ReadAll func(ctx context.Context) ([]store.Board, error)
	// Convert makes the value subscribers receive from a board's state;
	// it is called once per subscriber and change.
	Convert func(store.Board) T
	// PollInterval is how often a board being computed is read.
	PollInterval time.Duration
	// SweepInterval is how often the boards nobody computes are read, all
	// in one ReadAll, while they have subscribers.
	SweepInterval time.Duration
	// ReadTimeout bounds each read of a poll or a sweep; 0: 10 s.
	ReadTimeout time.Duration
	Logger      *slog.Logger
}

// ErrClosed is Subscribe's error once the Hub is closed.
var ErrClosed = errors.New("boardwatch: the hub is closed (the server is shutting down)")

// Hub holds the watchers of the boards that have subscribers.
type Hub[T any] struct {
	cfg Config[T]

	ctx    context.Context // ends with Close: reads stop, goroutines return
	cancel context.CancelFunc
	wg     sync.WaitGroup // the pollers and the sweeper

	mu       sync.Mutex
	closed   bool
	watches  map[int]*watch[T] // the boards with subscribers
	sweeping bool              // the sweeper runs
}

// watch is the watcher of one board. Its fields are guarded by Hub.mu.
type watch[T any] struct {
	n     int
	subs  map[*subscriber[T]]struct{}
	last  store.Board // the latest state read
	known bool        // last has been read
	// polling is set while a poller goroutine reads the board.
	polling bool
	// gone is set once the hub dropped the watch (board done, no
	// subscriber left, hub closed); stop is closed then, which ends its
	// poller at once.
	gone bool
	stop chan struct{}
}

// subscriber is one subscription's channel; guarded by Hub.mu.
type subscriber[T any] struct {
	ch     chan T
	closed bool
	leave  func() bool // stops the context.AfterFunc that unsubscribes
}

// New returns a hub over cfg.
func New[T any](cfg Config[T]) *Hub[T] {
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub[T]{cfg: cfg, ctx: ctx, cancel: cancel, watches: map[int]*watch[T]{}}
}

// computing reports whether someone is computing the board: its state
// changes on its own, so it is polled.
func computing(b store.Board) bool {
	return b.State == store.Pending || b.State == store.Running
}

// changed reports whether a subscriber would see a difference between
// two states of a board.
func changed(a, b store.Board) bool {
	return a.State != b.State || a.ChunksDone != b.ChunksDone || a.ChunksTotal != b.ChunksTotal ||
		a.SolutionsDone != b.SolutionsDone || a.LastError != b.LastError || !a.FinishedAt.Equal(b.FinishedAt) ||
		(a.Counts == nil) != (b.Counts == nil)
}

// Subscribe follows board n until ctx ends: the channel receives the
// board's state now, then its changes, and is closed after the board is
// done (or the hub closed). A read of the board that fails is the error.
func (h *Hub[T]) Subscribe(ctx context.Context, n int) (<-chan T, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	if w := h.watches[n]; w != nil && w.polling && w.known {
		// The poller's latest read is at most PollInterval old.
		s := h.add(ctx, w)
		h.mu.Unlock()
		return s.ch, nil
	}
	h.mu.Unlock()

	st, err := h.cfg.Read(ctx, n)
	if err != nil {
		return nil, err
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	w := h.watches[n]
	if w == nil {
		w = &watch[T]{n: n, subs: map[*subscriber[T]]struct{}{}, stop: make(chan struct{})}
		h.watches[n] = w
	}
	if !w.polling {
		// A fresh read is news for the board's other subscribers too:
		// it may end them, or start the poller.
		h.observe(w, st)
	}
	if w.gone { // done
		ch := make(chan T, 1)
		ch <- h.cfg.Convert(st)
		close(ch)
		return ch, nil
	}
	return h.add(ctx, w).ch, nil
}

// add subscribes to w, sending its latest state; under h.mu.
func (h *Hub[T]) add(ctx context.Context, w *watch[T]) *subscriber[T] {
	s := &subscriber[T]{ch: make(chan T, 1)}
	s.ch <- h.cfg.Convert(w.last)
	w.subs[s] = struct{}{}
	s.leave = context.AfterFunc(ctx, func() { h.unsubscribe(w, s) })
	return s
}

// unsubscribe removes s from w, and w from the hub once it has no
// subscriber left: its poller stops.
func (h *Hub[T]) unsubscribe(w *watch[T], s *subscriber[T]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	close(s.ch)
	delete(w.subs, s)
	if len(w.subs) == 0 {
		h.drop(w)
	}
}

// drop removes w from the hub; under h.mu.
func (h *Hub[T]) drop(w *watch[T]) {
	if w.gone {
		return
	}
	w.gone = true
	close(w.stop)
	if h.watches[w.n] == w {
		delete(h.watches, w.n)
	}
}

// send puts v in s's channel, replacing the value it holds if the
// subscriber has not taken it yet; under h.mu, so that nobody else sends
// between the two steps.
func send[T any](s *subscriber[T], v T) {
	select {
	case s.ch <- v:
		return
	default:
	}
	select {
	case <-s.ch:
	default:
	}
	select {
	case s.ch <- v:
	default:
	}
}

// observe takes st, a fresh read of w's board: its subscribers get it if
// it changed; a done board ends them; a board being computed is polled,
// one nobody computes waits for the sweep. Under h.mu.
func (h *Hub[T]) observe(w *watch[T], st store.Board) {
	news := !w.known || changed(w.last, st)
	w.last, w.known = st, true
	if news {
		for s := range w.subs {
			send(s, h.cfg.Convert(st))
		}
	}
	switch {
	case st.State == store.Done:
		for s := range w.subs {
			s.closed = true
			s.leave()
			close(s.ch)
		}
		clear(w.subs)
		h.drop(w)
	case computing(st):
		h.startPolling(w, false)
	default:
		w.polling = false // the poller, if it called, returns
		h.startSweeping()
	}
}

// startPolling starts w's poller unless it runs; now: its first read is
// at once, not after PollInterval. Under h.mu.
func (h *Hub[T]) startPolling(w *watch[T], now bool) {
	if w.polling || w.gone || h.closed {
		return
	}
	w.polling = true
	h.wg.Add(1)
	go h.poll(w, now)
}

// poll reads w's board every PollInterval (the first time at once when
// now) until it is no longer computed, done, or dropped.
func (h *Hub[T]) poll(w *watch[T], now bool) {
	defer h.wg.Done()
	t := time.NewTimer(h.cfg.PollInterval)
	defer t.Stop()
	for {
		if !now {
			select {
			case <-t.C:
				t.Reset(h.cfg.PollInterval)
			case <-w.stop:
				return
			case <-h.ctx.Done():
				return
			}
		}
		now = false
		ctx, cancel := context.WithTimeout(h.ctx, h.cfg.ReadTimeout)
		st, err := h.cfg.Read(ctx, w.n)
		cancel()
		h.mu.Lock()
		if w.gone || h.closed {
			h.mu.Unlock()
			return
		}
		if err != nil {
			h.mu.Unlock()
			if h.ctx.Err() == nil {
				h.cfg.Logger.Warn("boardProgress: reading the board", "n", w.n, "error", err)
			}
			continue
		}
		h.observe(w, st)
		polling := w.polling && !w.gone
		h.mu.Unlock()
		if !polling {
			return
		}
	}
}

// Poke tells the hub that board n may have started being computed (this
// process asked for it): if it has subscribers and is not polled, it is
// read at once, and polled if it is now computed. Cheap when nobody
// follows the board.
func (h *Hub[T]) Poke(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.watches[n]; w != nil {
		h.startPolling(w, true)
	}
}

// startSweeping starts the sweeper unless it runs; under h.mu.
func (h *Hub[T]) startSweeping() {
	if h.sweeping || h.closed {
		return
	}
	h.sweeping = true
	h.wg.Add(1)
	go h.sweep()
}

// sweep reads every board's row every SweepInterval while some watched
// board is not polled: a board whose row changed is read again (Read
// says more than the row, e.g. what a pending board will keep) by a
// poller started at once, which goes on if the board is now computed.
// It returns when no board waits.
func (h *Hub[T]) sweep() {
	defer h.wg.Done()
	t := time.NewTimer(h.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-h.ctx.Done():
			return
		}
		if !h.waiting() {
			return
		}
		ctx, cancel := context.WithTimeout(h.ctx, h.cfg.ReadTimeout)
		rows, err := h.cfg.ReadAll(ctx)
		cancel()
		if err != nil && h.ctx.Err() == nil {
			h.cfg.Logger.Warn("boardProgress: reading the boards", "error", err)
		}
		if err == nil {
			h.compare(rows)
		}
		if !h.waiting() {
			return
		}
		t.Reset(h.cfg.SweepInterval)
	}
}

// waiting reports whether some watched board is not polled; when none
// is, the sweeper is marked stopped (it returns).
func (h *Hub[T]) waiting() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range h.watches {
		if !w.polling {
			return true
		}
	}
	h.sweeping = false
	return false
}

// compare starts a poller, reading at once, for each watched board not
// polled whose row in rows differs from its latest state.
func (h *Hub[T]) compare(rows []store.Board) {
	byN := make(map[int]store.Board, len(rows))
	for _, b := range rows {
		byN[b.N] = b
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for n, w := range h.watches {
		if w.polling {
			continue
		}
		row, ok := byN[n]
		if !ok {
			row = store.Board{N: n}
		}
		if changed(w.last, row) {
			h.startPolling(w, true)
		}
	}
}

// Stats says what the hub holds now.
type Stats struct {
	Boards      int  // boards with subscribers
	Subscribers int  // their subscribers
	Polling     int  // boards being polled
	Sweeping    bool // the sweeper runs
}

// Stats says what the hub holds now.
func (h *Hub[T]) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := Stats{Boards: len(h.watches), Sweeping: h.sweeping}
	for _, w := range h.watches {
		s.Subscribers += len(w.subs)
		if w.polling {
			s.Polling++
		}
	}
	return s
}

// Close ends every subscription (their channels close) and waits for the
// hub's goroutines to return; Subscribe then fails with ErrClosed.
func (h *Hub[T]) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	for _, w := range h.watches {
		for s := range w.subs {
			s.closed = true
			s.leave()
			close(s.ch)
		}
		clear(w.subs)
		h.drop(w)
	}
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}
