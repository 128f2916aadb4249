package precompute_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

func unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// TestStoredBoards computes N=1..10 through the jobs: counts equal the
// published ones, the stored solutions and the square counts are the
// solver's, and every chunk was done by one job.
func TestStoredBoards(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{})
		ns := rangeN(1, 10)
		b.ask(t, ns...)
		b.start(t)
		for n, board := range b.waitFinished(t, ns...) {
			boardtest.CheckCounts(t, board)
			if !board.StoresSolutions || board.Tasks {
				t.Errorf("N=%d: stores solutions %t, tasks %t; want solutions stored, prefix chunks", n, board.StoresSolutions, board.Tasks)
			}
			boardtest.CheckStored(t, b.store, n)
			boardtest.CheckSquareCounts(t, b.store, n)
			checkChunksOnce(t, b, n)
			if _, err := b.store.FilteredCount(b.ctx, n, solver.Filter{}); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
				t.Errorf("N=%d: the rank index of a stored board: %v, want ENOTFOUND (its ranks come from the store)", n, err)
			}
		}
	})
}

// TestCountsOnlyBoard computes N=11 and N=12 above a storage limit of 8:
// their chunks are runs of the counter's tasks, their counts right, no
// solution is stored, and each, once done, has its rank index asked for
// (the count of the zero filter, in the solver's rank chunks).
func TestCountsOnlyBoard(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{config: func(c *precompute.Config) { c.StoreMaxN = 8 }})
		b.ask(t, 11, 12)
		b.start(t)
		for n, board := range b.waitFinished(t, 11, 12) {
			boardtest.CheckCounts(t, board)
			if board.StoresSolutions || !board.Tasks || board.ChunksTotal < 16 {
				t.Errorf("N=%d: %+v; want counts only, the tasks in 16 chunks or more", n, board)
			}
			if _, err := b.store.Page(b.ctx, store.PageRequest{N: n, Limit: 1}); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
				t.Errorf("N=%d: Page of a counts-only board: %v, want ENOTFOUND (nothing stored)", n, err)
			}
			if _, err := b.store.SquareCounts(b.ctx, n); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
				t.Errorf("N=%d: SquareCounts of a board counted by tasks: %v, want ENOTFOUND (its solutions were not listed)", n, err)
			}
			checkChunksOnce(t, b, n)
			plan, err := solver.PlanFilteredCount(n, solver.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			// The index is asked for just after the board is done.
			eventually.True(t, time.Minute, func() string {
				if fc, err := b.store.FilteredCount(b.ctx, n, solver.Filter{}); err != nil || fc.ChunksTotal != len(plan.Chunks) {
					return fmt.Sprintf("N=%d: the rank index: %+v, %v; want one of %d chunks asked for", n, fc, err, len(plan.Chunks))
				}
				return ""
			})
		}
		// Asking to store a board above the limit is refused.
		_, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 9}, boolPtr(true))
		if nqueens.ErrorCode(err) != nqueens.EINVALID {
			t.Errorf("Precompute(9, store solutions) above the limit 8: %v, want EINVALID", err)
		}
		_, err = b.engine.Precompute(b.ctx, store.BoardRequest{N: precompute.MaxN + 1}, nil)
		if nqueens.ErrorCode(err) != nqueens.EINVALID {
			t.Errorf("Precompute(%d): %v, want EINVALID", precompute.MaxN+1, err)
		}
	})
}

// TestAskAgain asks for boards that are pending, running or done: no job
// is added and no row changes.
func TestAskAgain(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{})
		// Pending: asked for twice before any worker runs, one job.
		b.ask(t, 9, 9)
		if jobs := b.jobs(t, precompute.KindBoard); len(jobs) != 1 {
			t.Fatalf("asking twice for a pending board queued %d board jobs, want 1", len(jobs))
		}
		// Running: planned by another process, whose chunks are not
		// done yet.
		running, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: 7, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "other process"})
		if err != nil {
			t.Fatal(err)
		}
		if again, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 7}, nil); err != nil || again.State != store.Running || !again.UpdatedAt.Equal(running.UpdatedAt) {
			t.Errorf("asking for a running board: %+v, %v; want it unchanged: %+v", again, err, running)
		}
		// Done.
		b.start(t)
		done := b.waitFinished(t, 9)[9]
		boardtest.CheckCounts(t, done)
		boardJobs, chunkJobs := len(b.jobs(t, precompute.KindBoard)), len(b.jobs(t, precompute.KindChunk))
		for range 3 {
			again, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 9}, nil)
			if err != nil || !again.UpdatedAt.Equal(done.UpdatedAt) || again.State != store.Done {
				t.Errorf("asking for a done board: %+v, %v; want it unchanged: %+v", again, err, done)
			}
		}
		if again, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 7}, boolPtr(false)); err != nil || again.State != store.Running || !again.UpdatedAt.Equal(running.UpdatedAt) {
			t.Errorf("asking again for a running board: %+v, %v; want it unchanged", again, err)
		}
		if bj, cj := len(b.jobs(t, precompute.KindBoard)), len(b.jobs(t, precompute.KindChunk)); bj != boardJobs || cj != chunkJobs {
			t.Errorf("asking for done and running boards added jobs: %d board and %d chunk jobs, were %d and %d", bj, cj, boardJobs, chunkJobs)
		}
		if final, err := b.store.Board(b.ctx, 9); err != nil || !final.UpdatedAt.Equal(done.UpdatedAt) {
			t.Errorf("the done board changed: %+v, %v", final, err)
		}
	})
}

// faultyStore is the real store with one fault switched on or off: it
// refuses the writes of one chunk, as a full disk or a broken connection
// would.
type faultyStore struct {
	n      int
	prefix solver.Placement
	refuse atomic.Bool
	// hold, when set, delays every write of board n by that long before
	// it starts (a chunk that runs long).
	hold time.Duration
}

var errInjected = errors.New("injected fault: the disk is full")

// faults are the store's faults: the writes of board n.
func (s *faultyStore) faults() faults {
	return faults{writeChunk: func(ctx context.Context, w store.ChunkWrite) error {
		if w.N() != s.n {
			return nil
		}
		if s.refuse.Load() && w.Tasks == nil && w.Chunk.Prefix.Compare(s.prefix) == 0 {
			return errInjected
		}
		if s.hold > 0 {
			select {
			case <-time.After(s.hold):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}}
}

// fastRetries retries a failed job after 10 ms.
type fastRetries struct{}

func (fastRetries) NextRetry(*rivertype.JobRow) time.Time {
	return time.Now().Add(10 * time.Millisecond)
}

var _ river.ClientRetryPolicy = fastRetries{}

// TestFailingChunk makes one chunk's writes fail every time: after its
// attempts the board fails with the error recorded, the chunk's job is
// discarded, and asking for the board again resumes it to the right
// counts once the fault is gone.
func TestFailingChunk(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		faulty := &faultyStore{n: 8, prefix: solver.Placement{3}}
		faulty.refuse.Store(true)
		b := setup(t, backend, options{
			config: func(c *precompute.Config) { c.MaxAttempts, c.RetryPolicy = 3, fastRetries{} },
			faults: faulty.faults(),
		})
		b.ask(t, 8)
		b.start(t)
		failed := b.waitFinished(t, 8)[8]
		if failed.State != store.Failed || !strings.Contains(failed.LastError, errInjected.Error()) ||
			!strings.Contains(failed.LastError, "3 times") {
			t.Fatalf("board with a failing chunk: %+v; want failed, the error recorded", failed)
		}
		// The job is discarded as its worker returns, just after the
		// board's failure is recorded.
		var discarded []*rivertype.JobRow
		eventually.True(t, 10*time.Second, func() string {
			for _, j := range b.jobs(t, precompute.KindChunk) {
				if j.State == rivertype.JobStateDiscarded {
					discarded = append(discarded, j)
				}
			}
			if len(discarded) == 0 {
				return "no chunk job is discarded"
			}
			return ""
		})
		if len(discarded) != 1 || discarded[0].Attempt != 3 || len(discarded[0].Errors) != 3 {
			t.Fatalf("discarded chunk jobs: %v; want the failing one, after 3 attempts", discarded)
		}

		faulty.refuse.Store(false)
		if again, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 8}, nil); err != nil || again.State != store.Failed {
			t.Fatalf("asking for the failed board again: %+v, %v", again, err)
		}
		// The row goes back to running, then done.
		done := boardtest.Watch(t, b.store, 8, time.Minute, func(bd store.Board) bool { return bd.State == store.Done })
		boardtest.CheckCounts(t, done)
		boardtest.CheckStored(t, b.store, 8)
	})
}

// TestHeartbeat holds a chunk for two seconds: while it runs, the board's
// updated_at moves on at each heartbeat.
func TestHeartbeat(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		faulty := &faultyStore{n: 4, hold: 2 * time.Second}
		b := setup(t, backend, options{
			config: func(c *precompute.Config) { c.Heartbeat = 200 * time.Millisecond },
			faults: faulty.faults(),
		})
		b.ask(t, 4)
		b.start(t)
		seen := map[time.Time]bool{}
		done := boardtest.Watch(t, b.store, 4, time.Minute, func(bd store.Board) bool {
			if bd.State == store.Running && bd.ChunksDone == 0 {
				seen[bd.UpdatedAt] = true
			}
			return bd.State == store.Done
		})
		boardtest.CheckCounts(t, done)
		// Two seconds of a running chunk at a 200 ms heartbeat: about
		// ten; at least four allows for a slow machine.
		if len(seen) < 4 {
			t.Errorf("updated_at took %d values while the first chunks ran 2 s, want the heartbeat's", len(seen))
		}
	})
}

// TestStopAndResume stops the workers in the middle of boards: running
// chunks commit or roll back, and a second engine over the same database
// finishes the boards with every chunk done once.
func TestStopAndResume(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{config: func(c *precompute.Config) { c.StopTimeout = 50 * time.Millisecond }})
		ns := []int{12, 13}
		b.ask(t, ns...)
		b.start(t)
		boardtest.Watch(t, b.store, 13, time.Minute, func(bd store.Board) bool { return bd.ChunksDone > 0 })
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		defer cancel()
		if err := b.engine.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		stopped, err := b.store.Board(b.ctx, 13)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("stopped with N=13 at %d of %d chunks", stopped.ChunksDone, stopped.ChunksTotal)
		b.start(t) // River clients start again after a stop
		for n, board := range b.waitFinished(t, ns...) {
			boardtest.CheckCounts(t, board)
			boardtest.CheckStored(t, b.store, n)
			// Chunks written before and after the stop add up.
			boardtest.CheckSquareCounts(t, b.store, n)
			checkChunksOnce(t, b, n)
		}
	})
}

// TestSweep leaves a board running with all its chunks written, as a
// worker that died between the last chunk's commit and closing the board
// would: the engine's sweep closes it.
func TestSweep(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{config: func(c *precompute.Config) { c.Heartbeat = 50 * time.Millisecond }})
		if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: 6, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "a worker that died"}); err != nil {
			t.Fatal(err)
		}
		chunks, _ := solver.Chunks(6, 1)
		for _, c := range chunks {
			if _, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}); err != nil {
				t.Fatal(err)
			}
		}
		b.start(t)
		boardtest.CheckCounts(t, b.waitFinished(t, 6)[6])
	})
}

// TestOnBoardChanged: the engine tells OnBoardChanged of each board it
// starts and finishes: twice per board.
func TestOnBoardChanged(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		var mu sync.Mutex
		told := map[int]int{}
		b := setup(t, backend, options{config: func(c *precompute.Config) {
			c.OnBoardChanged = func(n int) {
				mu.Lock()
				told[n]++
				mu.Unlock()
			}
		}})
		ns := rangeN(5, 8)
		b.ask(t, ns...)
		b.start(t)
		b.waitFinished(t, ns...)
		// The engine tells once the store has the board done: the test may
		// see it done first.
		eventually.True(t, 10*time.Second, func() string {
			mu.Lock()
			defer mu.Unlock()
			for _, n := range ns {
				if told[n] != 2 {
					return fmt.Sprintf("N=%d: told %d times, want 2 (planned, done)", n, told[n])
				}
			}
			return ""
		})
	})
}
