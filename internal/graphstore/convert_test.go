package graphstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// fakeStore answers with the errors a test sets; the methods it does not
// override are never called.
type fakeStore struct {
	store.Store
	err, pingErr error
	calls        int
}

func (f *fakeStore) Board(context.Context, int) (store.Board, error) {
	f.calls++
	return store.Board{}, f.err
}

func (f *fakeStore) Page(context.Context, store.PageRequest) ([]store.Solution, error) {
	return nil, f.err
}

func (f *fakeStore) Ping(context.Context) error { return f.pingErr }

// TestErrors: how store errors reach the resolvers (the HTTP tests on real
// databases cover the paths a database can be made to take).
func TestErrors(t *testing.T) {
	t.Parallel()
	internal := errors.New("scan: bad column")
	for _, tt := range []struct {
		name          string
		err, pingErr  error
		expired       bool
		want          error // errors.Is; nil: the error passes as it is
		wantUnchanged bool
	}{
		{name: "unavailable", err: store.Errorf(store.EUNAVAILABLE, "cannot connect"), want: graph.ErrUnavailable},
		{name: "not found", err: store.Errorf(store.ENOTFOUND, "no such solution"), want: graph.ErrNotFound},
		{name: "connection cut", err: fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), want: graph.ErrUnavailable},
		{name: "closed pool", err: errors.New("closed pool"), want: graph.ErrUnavailable},
		{name: "down, ping says so", err: internal, pingErr: store.Errorf(store.EUNAVAILABLE, "cannot connect"), want: graph.ErrUnavailable},
		{name: "a bug", err: internal, wantUnchanged: true},
		{name: "deadline", err: store.Errorf(store.EUNAVAILABLE, "timeout"), expired: true, want: context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := New(&fakeStore{err: tt.err, pingErr: tt.pingErr})
			ctx := context.Background()
			if tt.expired {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 0)
				defer cancel()
			}
			_, err := s.Page(ctx, graph.PageRequest{N: 8, Limit: 5})
			switch {
			case tt.wantUnchanged && err != tt.err:
				t.Errorf("got %v, want %v unchanged", err, tt.err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Errorf("got %v, want one that is %v", err, tt.want)
			case tt.want == graph.ErrUnavailable && errors.Is(err, graph.ErrNotFound):
				t.Errorf("got %v: both unavailable and not found", err)
			}
		})
	}
}

// TestBoardStates: a board the store has no row for is UNKNOWN, not an
// error; a done board's row is read once.
func TestBoardStates(t *testing.T) {
	t.Parallel()
	f := &fakeStore{err: store.Errorf(store.ENOTFOUND, "N=9 has not been requested")}
	s := New(f)
	st, err := s.Board(context.Background(), 9)
	if err != nil || st.State != graph.BoardStateUnknown || st.N != 9 {
		t.Fatalf("Board(9) = %+v, %v; want UNKNOWN", st, err)
	}

	counts := solver.Counts{Total: 92, Unique: 12, Orbit4: 1, Orbit8: 11}
	done := Status(store.Board{N: 8, State: store.Done, StoresSolutions: true, Counts: &counts, ChunksDone: 3, ChunksTotal: 3, SolutionsDone: 92})
	if done.State != graph.BoardStateDone || done.Counts == nil || done.Counts.Total != 92 || !done.StoresSolutions || done.SolutionsFound != 92 {
		t.Fatalf("Status(done) = %+v", done)
	}
	running := Status(store.Board{N: 8, State: store.Running, Counts: &counts})
	if running.State != graph.BoardStateRunning || running.Counts != nil {
		t.Fatalf("Status(running) = %+v: a running board has no final counts", running)
	}
	s.remember(done)
	f.err = errors.New("must not be read")
	if st, err := s.Board(context.Background(), 8); err != nil || st.State != graph.BoardStateDone {
		t.Fatalf("Board(8) after it was done = %+v, %v", st, err)
	}
}
