package graph

import (
	"context"
	"errors"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/boardwatch"
)

// progress follows board N for boardProgress: its state now, then each
// change, until it is done. Subscribers share one watcher per board
// (internal/boardwatch): a board being computed is read once per
// PollInterval however many follow it, and one nobody computes is not
// polled (a poke or the sweep notices when it starts). Without a store
// nothing can change: the board is sent once and the subscription ends.
func (r *subscriptionResolver) progress(ctx context.Context, n int) (<-chan *Board, error) {
	if r.watch == nil {
		st, err := r.status(ctx, n)
		if err != nil {
			return nil, err
		}
		ch := make(chan *Board, 1)
		ch <- r.boardModel(st)
		close(ch)
		return ch, nil
	}
	ch, err := r.watch.Subscribe(ctx, n)
	if errors.Is(err, boardwatch.ErrClosed) {
		return nil, newError(apierror.Unavailable, "the server is shutting down; subscribe again to another")
	}
	return ch, err
}
