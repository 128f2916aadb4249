package graph

import (
	"context"
	"time"

	"github.com/nqueens/nqueens/store"
)

// finished reports whether a board will not change unless asked again.
func finished(b store.Board) bool {
	return b.State == store.Done || b.State == store.Failed
}

// pollBoard reads board N from the store every PollInterval and sends it
// when it changed, until it is finished or ctx ends. The store is the only
// channel: workers in other processes update it.
func (r *subscriptionResolver) pollBoard(ctx context.Context, last store.Board, ch chan<- *Board) {
	defer close(ch)
	t := time.NewTicker(r.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st, err := r.status(ctx, last.N)
		if err != nil {
			r.opts.Logger.WarnContext(ctx, "boardProgress: reading the board", "n", last.N, "error", err)
			continue
		}
		if changed(last, st) {
			select {
			case ch <- r.boardModel(st):
			case <-ctx.Done():
				return
			}
			last = st
		}
		if finished(st) {
			return
		}
	}
}

// changed reports whether a subscriber would see a difference.
func changed(a, b store.Board) bool {
	return a.State != b.State || a.ChunksDone != b.ChunksDone || a.ChunksTotal != b.ChunksTotal ||
		a.SolutionsDone != b.SolutionsDone || a.LastError != b.LastError || !a.FinishedAt.Equal(b.FinishedAt) ||
		(a.Counts == nil) != (b.Counts == nil)
}
