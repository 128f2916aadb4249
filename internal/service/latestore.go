package service

import (
	"context"
	"sync/atomic"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// lateStore is the store serve's API reads through while the database may
// not be open yet (startup.go): until set, every call fails at once with
// EUNAVAILABLE, which the API answers as UNAVAILABLE; then each call goes
// to the store that was set. The API only reads: it wraps a store.Reader.
type lateStore struct {
	st atomic.Pointer[store.Reader]
}

var _ store.Reader = (*lateStore)(nil)

// errNotOpen is what a lateStore answers before its store is set.
var errNotOpen = nqueens.Errorf(nqueens.EUNAVAILABLE, "the database is not reachable yet")

func (l *lateStore) set(st store.Reader) { l.st.Store(&st) }

// get returns the store, or errNotOpen before it is set.
func (l *lateStore) get() (store.Reader, error) {
	if p := l.st.Load(); p != nil {
		return *p, nil
	}
	return nil, errNotOpen
}

func (l *lateStore) Board(ctx context.Context, n int) (store.Board, error) {
	st, err := l.get()
	if err != nil {
		return store.Board{}, err
	}
	return st.Board(ctx, n)
}

func (l *lateStore) Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Boards(ctx, states...)
}

func (l *lateStore) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Page(ctx, req)
}

func (l *lateStore) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error {
	st, err := l.get()
	if err != nil {
		return err
	}
	return st.Walk(ctx, req, visit)
}

func (l *lateStore) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error) {
	st, err := l.get()
	if err != nil {
		return store.Solution{}, err
	}
	return st.SolutionAt(ctx, n, rank, unique)
}

func (l *lateStore) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	st, err := l.get()
	if err != nil {
		return 0, err
	}
	return st.Rank(ctx, n, p, unique)
}

func (l *lateStore) SquareCounts(ctx context.Context, n int) (solver.SquareCounts, error) {
	st, err := l.get()
	if err != nil {
		return solver.SquareCounts{}, err
	}
	return st.SquareCounts(ctx, n)
}

func (l *lateStore) FilteredCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error) {
	st, err := l.get()
	if err != nil {
		return store.FilteredCount{}, err
	}
	return st.FilteredCount(ctx, n, f)
}

func (l *lateStore) FilteredCountChunks(ctx context.Context, n int, f solver.Filter) ([]solver.Counts, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.FilteredCountChunks(ctx, n, f)
}

func (l *lateStore) Ping(ctx context.Context) error {
	st, err := l.get()
	if err != nil {
		return err
	}
	return st.Ping(ctx)
}
