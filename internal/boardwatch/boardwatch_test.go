package boardwatch_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/boardwatch"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// The hub runs over a real SQLite store, whose boards the tests move
// through their states as the precompute workers do (RequestBoard,
// PlanBoard, WriteChunk, FinishBoard, FailBoard); the reads the hub makes
// are counted.

// counted is a store whose board reads are counted.
type counted struct {
	*sqlite.Store
	reads, sweeps atomic.Int64
}

func (c *counted) read(ctx context.Context, n int) (store.Board, error) {
	c.reads.Add(1)
	b, err := c.Store.Board(ctx, n)
	if nqueens.ErrorCode(err) == nqueens.ENOTFOUND {
		return store.Board{N: n}, nil
	}
	return b, err
}

func (c *counted) readAll(ctx context.Context) ([]store.Board, error) {
	c.sweeps.Add(1)
	return c.Store.Boards(ctx)
}

// state is what subscribers receive in these tests.
type state struct {
	State      store.BoardState
	ChunksDone int
}

func setup(t *testing.T, poll, sweep time.Duration) (*boardwatch.Hub[state], *counted) {
	t.Helper()
	st := &counted{Store: sqlitetest.OpenTemp(t)}
	h := boardwatch.New(boardwatch.Config[state]{
		Read:          st.read,
		ReadAll:       st.readAll,
		Convert:       func(b store.Board) state { return state{b.State, b.ChunksDone} },
		PollInterval:  poll,
		SweepInterval: sweep,
		Logger:        slog.New(slog.DiscardHandler),
	})
	t.Cleanup(h.Close)
	return h, st
}

// plan moves board n to running and returns its chunks.
func plan(t *testing.T, st store.ReadCloser, n int) []solver.Chunk {
	t.Helper()
	depth := solver.DefaultChunkDepth(n)
	if _, _, err := storetest.WritesOf(t, st).PlanBoard(t.Context(), store.BoardPlan{N: n, ChunkDepth: depth, StoresSolutions: true, SolverVersion: "boardwatch-test"}); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		t.Fatal(err)
	}
	return chunks
}

// write writes chunk c of its board, finishing the board after its last.
func write(t *testing.T, st store.ReadCloser, n int, c solver.Chunk) {
	t.Helper()
	last, err := storetest.WritesOf(t, st).WriteChunk(context.Background(), store.ChunkWrite{Chunk: c, Solutions: c.Solutions()})
	if err != nil {
		t.Error(err)
		return
	}
	if last {
		if _, err := storetest.WritesOf(t, st).FinishBoard(context.Background(), n); err != nil {
			t.Error(err)
		}
	}
}

// next receives from ch within 10 s; ok false when ch closed.
func next(t *testing.T, ch <-chan state) (state, bool) {
	t.Helper()
	select {
	case s, ok := <-ch:
		return s, ok
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received within 10 s")
	}
	return state{}, false
}

// drain receives from ch until it closes, within 30 s, and returns what
// came.
func drain(ch <-chan state) ([]state, error) {
	var got []state
	timeout := time.After(30 * time.Second)
	for {
		select {
		case s, ok := <-ch:
			if !ok {
				return got, nil
			}
			got = append(got, s)
		case <-timeout:
			return got, fmt.Errorf("still open after 30 s, having received %v", got)
		}
	}
}

// TestOnePollerForManySubscribers: 200 subscribers of a running board
// cost one read per poll interval, not one each; each of them sees the
// board's progress and ends with it done; the poller stops then.
func TestOnePollerForManySubscribers(t *testing.T) {
	t.Parallel()
	const subscribers, poll = 200, 20 * time.Millisecond
	h, st := setup(t, poll, time.Hour)
	chunks := plan(t, st, 8)
	ctx := t.Context()

	chans := make([]<-chan state, subscribers)
	for i := range chans {
		ch, err := h.Subscribe(ctx, 8)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := next(t, ch); s.State != store.Running {
			t.Fatalf("subscriber %d's first state %+v, want running", i, s)
		}
		chans[i] = ch
	}
	// One read for the first subscriber; the others joined a board being
	// polled and were given the poller's latest read.
	if n := st.reads.Load(); n > 1+int64(subscribers)/4 {
		t.Errorf("%d subscribers made %d reads to join; want those after the poller started to join its latest read", subscribers, n)
	}

	before, start := st.reads.Load(), time.Now()
	time.Sleep(20 * poll)
	reads, took := st.reads.Load()-before, time.Since(start)
	t.Logf("%d subscribers of a running board: %d reads in %s (poll interval %s)", subscribers, reads, took.Round(time.Millisecond), poll)
	if most := int64(took/poll) + 2; reads > most {
		t.Errorf("%d reads in %s; want at most one per poll interval (%d)", reads, took, most)
	}
	if reads == 0 {
		t.Error("the running board was not polled")
	}

	var wg sync.WaitGroup
	results := make([][]state, subscribers)
	errs := make([]error, subscribers)
	for i, ch := range chans {
		wg.Go(func() { results[i], errs[i] = drain(ch) })
	}
	for _, c := range chunks {
		write(t, st, 8, c)
		time.Sleep(poll / 2)
	}
	wg.Wait()
	for i, got := range results {
		if errs[i] != nil {
			t.Fatalf("subscriber %d: %v", i, errs[i])
		}
		if len(got) == 0 || got[len(got)-1].State != store.Done || got[len(got)-1].ChunksDone != len(chunks) {
			t.Fatalf("subscriber %d received %v; want progress ending with the board done", i, got)
		}
		for j := 1; j < len(got); j++ {
			if got[j].ChunksDone < got[j-1].ChunksDone {
				t.Fatalf("subscriber %d: progress went back: %v", i, got)
			}
		}
	}
	eventually.True(t, 5*time.Second, func() string {
		if s := h.Stats(); s != (boardwatch.Stats{}) {
			return fmt.Sprintf("the hub holds %+v after the board is done", s)
		}
		return ""
	})
}

// TestIdleBoardsAreNotPolled: subscribers of boards nobody computes (one
// unknown, one failed) cause no read while nothing happens; a Poke after
// a board is asked for makes the watcher read it at once and follow it.
func TestIdleBoardsAreNotPolled(t *testing.T) {
	t.Parallel()
	const poll = 10 * time.Millisecond
	h, st := setup(t, poll, time.Hour)
	plan(t, st, 7)
	if _, err := storetest.WritesOf(t, st).FailBoard(t.Context(), 7, "given up"); err != nil {
		t.Fatal(err)
	}
	var unknown, failed []<-chan state
	for range 100 {
		for n, into := range map[int]*[]<-chan state{9: &unknown, 7: &failed} {
			ch, err := h.Subscribe(t.Context(), n)
			if err != nil {
				t.Fatal(err)
			}
			*into = append(*into, ch)
		}
	}
	if s, _ := next(t, unknown[0]); s.State != store.Unknown {
		t.Fatalf("N=9 first state %+v, want unknown", s)
	}
	if s, _ := next(t, failed[0]); s.State != store.Failed {
		t.Fatalf("N=7 first state %+v, want failed", s)
	}
	if s := h.Stats(); s.Polling != 0 || s.Subscribers != 200 || !s.Sweeping {
		t.Errorf("stats %+v: want 200 subscribers, nothing polled, the sweep waiting", s)
	}
	before := st.reads.Load()
	time.Sleep(50 * poll)
	if n := st.reads.Load() - before; n != 0 || st.sweeps.Load() != 0 {
		t.Fatalf("%d reads and %d sweeps in 50 poll intervals of boards nobody computes; want none", n, st.sweeps.Load())
	}

	if _, _, err := storetest.WritesOf(t, st).RequestBoard(t.Context(), store.BoardRequest{N: 9}); err != nil {
		t.Fatal(err)
	}
	h.Poke(9)
	start := time.Now()
	for i, ch := range unknown[1:] {
		// Each holds one state, the latest: the unknown it was given
		// first, or pending already in its place.
		s, _ := next(t, ch)
		if s.State == store.Unknown {
			s, _ = next(t, ch)
		}
		if s.State != store.Pending {
			t.Fatalf("subscriber %d after the poke: %+v, want pending", i, s)
		}
	}
	t.Logf("100 subscribers of an idle board saw it pending %s after the poke", time.Since(start).Round(time.Millisecond))
	if s := h.Stats(); s.Polling != 1 {
		t.Errorf("after the poke: %+v, want N=9 polled", s)
	}
	h.Poke(12) // nobody follows it: nothing happens
	time.Sleep(5 * poll)
	if s := h.Stats(); s.Boards != 2 {
		t.Errorf("a poke of a board nobody follows: %+v", s)
	}
}

// TestSweepNoticesWorkElsewhere: a board asked for by another process
// (no poke) is noticed by the sweep, one read of all boards per sweep
// interval whatever the number of idle boards and subscribers; the
// sweep stops once no board waits.
func TestSweepNoticesWorkElsewhere(t *testing.T) {
	t.Parallel()
	const poll, sweep = 10 * time.Millisecond, 100 * time.Millisecond
	h, st := setup(t, poll, sweep)
	ctx, cancel := context.WithCancel(t.Context())
	chans := map[int]<-chan state{}
	for n := 4; n <= 12; n++ {
		for range 20 {
			ch, err := h.Subscribe(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			chans[n] = ch
		}
	}
	before, reads, start := st.sweeps.Load(), st.reads.Load(), time.Now()
	time.Sleep(5 * sweep)
	sweeps, took := st.sweeps.Load()-before, time.Since(start)
	t.Logf("9 idle boards with 20 subscribers each: %d sweeps and %d reads of one board in %s (every %s)",
		sweeps, st.reads.Load()-reads, took.Round(time.Millisecond), sweep)
	if n := st.reads.Load() - reads; n != 0 {
		t.Errorf("%d reads of one board while nothing changed; want the sweeps only", n)
	}
	if sweeps > int64(took/sweep)+1 || sweeps < 2 {
		t.Errorf("%d sweeps in 5 sweep intervals; want one per interval", sweeps)
	}
	if _, _, err := storetest.WritesOf(t, st).RequestBoard(t.Context(), store.BoardRequest{N: 10}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	ch := chans[10]
	for {
		s, _ := next(t, ch)
		if s.State == store.Pending {
			break
		}
	}
	t.Logf("a board asked for elsewhere was noticed after %s", time.Since(start).Round(time.Millisecond))
	if took := time.Since(start); took > 10*sweep {
		t.Errorf("noticed after %s; want within a sweep interval or so (%s)", took, sweep)
	}
	cancel()
	eventually.True(t, 5*time.Second, func() string {
		if s := h.Stats(); s != (boardwatch.Stats{}) {
			return fmt.Sprintf("the hub holds %+v after every subscriber left", s)
		}
		return ""
	})
	reads, sweeps = st.reads.Load(), st.sweeps.Load()
	time.Sleep(3 * sweep)
	if st.reads.Load() != reads || st.sweeps.Load() != sweeps {
		t.Errorf("reads went on after every subscriber left: %d → %d reads, %d → %d sweeps", reads, st.reads.Load(), sweeps, st.sweeps.Load())
	}
}

// TestDoneBoardEndsAtOnce: a subscriber of a done board gets it and its
// channel closes; nothing is kept.
func TestDoneBoardEndsAtOnce(t *testing.T) {
	t.Parallel()
	h, st := setup(t, 10*time.Millisecond, time.Hour)
	for _, c := range plan(t, st, 5) {
		write(t, st, 5, c)
	}
	ch, err := h.Subscribe(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := drain(ch); err != nil || len(got) != 1 || got[0].State != store.Done {
		t.Fatalf("received %v, %v; want the done board, then the end", got, err)
	}
	if s := h.Stats(); s != (boardwatch.Stats{}) {
		t.Errorf("the hub holds %+v", s)
	}
}

// TestSlowSubscriber: a subscriber that does not read holds up neither
// the poller nor the others; when it reads at last it gets the latest
// state (done), then the end.
func TestSlowSubscriber(t *testing.T) {
	t.Parallel()
	const poll = 10 * time.Millisecond
	h, st := setup(t, poll, time.Hour)
	chunks := plan(t, st, 8)
	slow, err := h.Subscribe(t.Context(), 8)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.Subscribe(t.Context(), 8)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []state)
	go func() {
		got, err := drain(fast)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	for _, c := range chunks {
		write(t, st, 8, c)
		time.Sleep(2 * poll)
	}
	got := <-done
	if len(got) < 3 {
		t.Errorf("the fast subscriber received %v; want the progress", got)
	}
	rest, err := drain(slow)
	if err != nil || len(rest) != 1 || rest[0].State != store.Done {
		t.Errorf("the slow subscriber received %v, %v; want only the latest state, done", rest, err)
	}
}

// TestClose: Close ends every subscription and the hub's goroutines;
// Subscribe fails after it.
func TestClose(t *testing.T) {
	t.Parallel()
	h, st := setup(t, 10*time.Millisecond, 20*time.Millisecond)
	plan(t, st, 8)
	running, err := h.Subscribe(t.Context(), 8)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := h.Subscribe(t.Context(), 9)
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	for _, ch := range []<-chan state{running, idle} {
		if _, err := drain(ch); err != nil {
			t.Error(err)
		}
	}
	if _, err := h.Subscribe(t.Context(), 8); err != boardwatch.ErrClosed {
		t.Errorf("Subscribe after Close: %v", err)
	}
	reads := st.reads.Load() + st.sweeps.Load()
	time.Sleep(100 * time.Millisecond)
	if now := st.reads.Load() + st.sweeps.Load(); now != reads {
		t.Errorf("%d reads after Close", now-reads)
	}
}
