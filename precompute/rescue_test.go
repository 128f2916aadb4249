package precompute_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
)

// goneStore is the real store of a worker process that, once it vanishes,
// looks gone to the others: its heartbeats fail and none of its chunk
// writes lands, as after a SIGKILL, until it is released (then the
// writes held go through, as those of a worker that was only cut off from
// the database for a while).
type goneStore struct {
	gone      atomic.Bool
	release   chan struct{}
	releaseMu sync.Once
}

func newGoneStore() *goneStore { return &goneStore{release: make(chan struct{})} }

func (s *goneStore) vanish()   { s.gone.Store(true) }
func (s *goneStore) comeBack() { s.releaseMu.Do(func() { close(s.release) }) }

// faults are those of a worker that may vanish: no heartbeat, writes held.
func (s *goneStore) faults() faults {
	return faults{
		seeWorker: func(context.Context, string) error {
			if s.gone.Load() {
				return nqueens.Errorf(nqueens.EUNAVAILABLE, "this worker is gone")
			}
			return nil
		},
		writeChunk: func(ctx context.Context, _ store.ChunkWrite) error {
			if s.gone.Load() {
				select {
				case <-s.release:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		},
	}
}

// rescueAfter makes a worker look gone after 2 s without a heartbeat (20
// heartbeats of 100 ms) rather than the default 20 s: long enough for a
// live worker's heartbeat on a loaded machine under the race detector,
// where on SQLite it waits its turn on the one write connection.
const rescueAfter = 2 * time.Second

// rescueConfig is the engine's configuration with rescueAfter, one worker.
func rescueConfig(c *precompute.Config) {
	c.Workers, c.Heartbeat, c.RescueAfter = 1, 100*time.Millisecond, rescueAfter
}

// TestRescueGoneWorker: a worker process vanishes with chunk jobs running
// (no heartbeat, no write) in the middle of a board; another process
// rescues those jobs once the first has been silent for RescueAfter and
// finishes the board, exactly. When the first comes back and finishes the
// same chunks, nothing more is written: no count is doubled.
func TestRescueGoneWorker(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		const n = 10
		gone := newGoneStore()
		a := setup(t, backend, options{config: rescueConfig, faults: gone.faults()})
		a.start(t)
		gone.vanish()
		a.ask(t, n)
		held := waitHeld(t, a, a.engine.ID())

		b := a.peer(t, options{config: rescueConfig})
		b.start(t)
		vanished := time.Now()
		done := b.waitFinished(t, n)[n]
		t.Logf("%s: %d chunk jobs held by the worker gone; board done %s after the other started", backend, len(held), time.Since(vanished).Round(time.Millisecond))
		boardtest.CheckCounts(t, done)
		boardtest.CheckStored(t, b.store, n)
		checkChunksOnce(t, b, n)

		// Each held job was rescued once, naming the worker gone, then
		// completed by the other process.
		for _, j := range b.jobs(t, precompute.KindChunk) {
			if !held[j.ID] {
				continue
			}
			var meta struct {
				Rescues int `json:"river:rescue_count"`
			}
			_ = json.Unmarshal(j.Metadata, &meta)
			if j.State != rivertype.JobStateCompleted || !slices.Equal(j.AttemptedBy, []string{a.engine.ID(), b.engine.ID()}) ||
				meta.Rescues != 1 || len(j.Errors) != 1 || !strings.Contains(j.Errors[0].Error, a.engine.ID()+`" is gone`) {
				t.Errorf("held job %d: %s, attempted by %v, %d rescues, errors %v; want rescued once from the worker gone, then completed by the other",
					j.ID, j.State, j.AttemptedBy, meta.Rescues, j.Errors)
			}
		}

		// The worker that seemed gone finishes its chunks after all.
		gone.comeBack()
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		defer cancel()
		if err := a.engine.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		after, err := b.store.Board(b.ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if after.SolutionsDone != done.SolutionsDone || after.ChunksDone != done.ChunksDone || *after.Counts != *done.Counts {
			t.Errorf("the chunks written again by the worker that came back changed the board: %+v, was %+v", after, done)
		}
		boardtest.CheckStored(t, b.store, n)
		checkChunksOnce(t, b, n)
	})
}

// waitHeld waits until the worker named id holds chunk jobs (running, last
// fetched by it), and returns their ids.
func waitHeld(t *testing.T, b *bundle, id string) map[int64]bool {
	t.Helper()
	var held map[int64]bool
	eventually.True(t, time.Minute, func() string {
		held = map[int64]bool{}
		for _, j := range b.jobs(t, precompute.KindChunk) {
			if j.State == rivertype.JobStateRunning && j.AttemptedBy[len(j.AttemptedBy)-1] == id {
				held[j.ID] = true
			}
		}
		if len(held) == 0 {
			return "worker " + id + " holds no chunk job"
		}
		return ""
	})
	return held
}

// TestNoRescueWhileAlive: chunks that run three times RescueAfter in a
// worker that is alive (its heartbeat goes on) are not rescued by the
// other process, which looks for jobs to rescue while they run: every
// chunk job runs once.
func TestNoRescueWhileAlive(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		const n = 9
		hold := 3 * rescueAfter
		slow := &faultyStore{n: n, hold: hold}
		a := setup(t, backend, options{config: rescueConfig, faults: slow.faults()})
		a.start(t)
		a.ask(t, n)
		waitHeld(t, a, a.engine.ID())
		b := a.peer(t, options{config: rescueConfig})
		b.start(t)
		done := b.waitFinished(t, n)[n]
		boardtest.CheckCounts(t, done)
		checkChunksOnce(t, b, n)

		long := 0
		for _, j := range b.jobs(t, precompute.KindChunk) {
			if j.Attempt != 1 || len(j.Errors) != 0 || len(j.AttemptedBy) != 1 {
				t.Errorf("job %d: attempt %d by %v, errors %v; want one attempt, never rescued", j.ID, j.Attempt, j.AttemptedBy, j.Errors)
			}
			if j.AttemptedBy[0] == a.engine.ID() && j.FinalizedAt.Sub(*j.AttemptedAt) >= hold {
				long++
			}
		}
		if long == 0 {
			t.Fatalf("no chunk of the slow worker ran %s: the test tested nothing", hold)
		}
		t.Logf("%s: %d chunk jobs ran %s or more in the live worker, none rescued", backend, long, hold)
	})
}
