package precompute_test

import (
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
)

// TestRequestedBy: the first requester of a board is kept through its
// job to the done board; a later one changes nothing, a bad name is
// refused before anything is written or queued.
func TestRequestedBy(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{})
		first, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 8, RequestedBy: "alice"}, nil)
		if err != nil || first.State != store.Pending || first.RequestedBy != "alice" {
			t.Fatalf("Precompute(8) by alice: %+v, %v; want pending, requested by alice", first, err)
		}
		if again, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: 8, RequestedBy: "bob"}, nil); err != nil || again.RequestedBy != "alice" {
			t.Errorf("Precompute(8) again by bob: %+v, %v; want alice kept", again, err)
		}
		_, err = b.engine.Precompute(b.ctx, store.BoardRequest{N: 6, RequestedBy: "eve\n"}, nil)
		if nqueens.ErrorCode(err) != nqueens.EINVALID {
			t.Errorf("Precompute(6) by a name with a line break: %v, want EINVALID", err)
		}
		if _, err := b.store.Board(b.ctx, 6); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
			t.Errorf("after the refused request, Board(6): %v, want ENOTFOUND (no row)", err)
		}
		for _, j := range b.jobs(t, precompute.KindBoard) {
			var args precompute.BoardArgs
			if err := unmarshal(j.EncodedArgs, &args); err != nil {
				t.Fatal(err)
			}
			if want := map[int]string{8: "alice"}[args.N]; args.RequestedBy != want {
				t.Errorf("the board job of N=%d carries requester %q, want %q", args.N, args.RequestedBy, want)
			}
		}
		b.start(t)
		done := b.waitFinished(t, 8)[8]
		boardtest.CheckCounts(t, done)
		if done.RequestedBy != "alice" {
			t.Errorf("N=8 done: requested by %q, want alice", done.RequestedBy)
		}
	})
}
