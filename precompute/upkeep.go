package precompute

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/nqueens/nqueens/store"
)

// runningBoards counts the chunk jobs this process runs, per board.
type runningBoards struct {
	mu sync.Mutex
	n  map[int]int
}

func newRunningBoards() *runningBoards { return &runningBoards{n: map[int]int{}} }

// enter records a chunk job of board n starting; the function it returns
// records its end.
func (r *runningBoards) enter(n int) (exit func()) {
	r.mu.Lock()
	r.n[n]++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.n[n]--; r.n[n] == 0 {
			delete(r.n, n)
		}
		r.mu.Unlock()
	}
}

func (r *runningBoards) boards() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(maps.Keys(r.n))
}

// upkeep runs the engine's background duties until ctx ends: the
// heartbeat, every Config.Heartbeat; the sweep, at once and every
// sweepEvery heartbeats; and the rescue of the jobs of workers gone, every
// quarter of Config.RescueAfter (rescue.go).
func (e *Engine[TTx]) upkeep(ctx context.Context) {
	defer close(e.upkeepDone)
	tick := time.NewTicker(e.cfg.Heartbeat)
	defer tick.Stop()
	rescueEvery := max(1, int(e.cfg.RescueAfter/4/e.cfg.Heartbeat))
	for beats := 0; ; beats++ {
		if beats%sweepEvery == 0 {
			e.sweep(ctx)
		}
		if beats%rescueEvery == 0 {
			e.bounded(ctx, e.rescue)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		e.bounded(ctx, e.heartbeat)
	}
}

// bounded runs duty with RescueAfter to finish: a heartbeat that takes
// longer is missed anyway, and a hung connection must not stop the
// heartbeats that follow.
func (e *Engine[TTx]) bounded(ctx context.Context, duty func(context.Context)) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.RescueAfter)
	defer cancel()
	duty(ctx)
}

// heartbeat records that this process is alive (its row in the workers
// table: rescue.go), and refreshes the updated_at of the boards whose
// chunks run in it. Chunks of stored boards commit many times a second,
// each raising the board's progress; a task of a counts-only board at
// large N runs for minutes without a commit, and the heartbeat is then
// what shows progress readers (and the ETA they compute from updated_at)
// that the board is alive.
func (e *Engine[TTx]) heartbeat(ctx context.Context) {
	switch err := e.store.SeeWorker(ctx, e.id); {
	case err != nil:
		e.heartbeatsSince = time.Time{}
		if !errors.Is(err, context.Canceled) {
			e.log.Warn("worker heartbeat", "worker", e.id, "err", err)
		}
	case e.heartbeatsSince.IsZero():
		e.heartbeatsSince = time.Now()
	}
	for _, n := range e.running.boards() {
		if err := e.store.TouchBoard(ctx, n); err != nil && ctx.Err() == nil {
			e.log.Warn("progress heartbeat", "n", n, "err", err)
		}
	}
}

// sweepEvery is how many heartbeats apart the sweeps are: 10 s by
// default.
const sweepEvery = 10

// sweep closes the boards whose chunks are all done but which are still
// running: the process that wrote the last chunk died (or lost the
// database) before closing the board. Any process may close any board;
// FinishBoard takes the board's row lock, and closing it twice changes
// nothing.
func (e *Engine[TTx]) sweep(ctx context.Context) {
	boards, err := e.store.Boards(ctx)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("sweeping the boards left running", "err", err)
		}
		return
	}
	for _, b := range boards {
		// The job of the last chunk closes its board a moment after its
		// commit: the sweep leaves it five heartbeats to do so.
		if b.State != store.Running || b.ChunksDone < b.ChunksTotal || time.Since(b.UpdatedAt) < 5*e.cfg.Heartbeat {
			continue
		}
		e.log.Info("closing a board whose chunks are all done", "n", b.N)
		if err := e.finish(ctx, b.N); err != nil && ctx.Err() == nil {
			e.log.Warn("closing a board whose chunks are all done", "n", b.N, "err", err)
		}
	}
}
