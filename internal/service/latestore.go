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
// to the store that was set.
type lateStore struct {
	st atomic.Pointer[store.Store]
}

var _ store.Store = (*lateStore)(nil)

// errNotOpen is what a lateStore answers before its store is set.
var errNotOpen = nqueens.Errorf(nqueens.EUNAVAILABLE, "the database is not reachable yet")

func (l *lateStore) set(st store.Store) { l.st.Store(&st) }

// get returns the store, or errNotOpen before it is set.
func (l *lateStore) get() (store.Store, error) {
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

func (l *lateStore) Boards(ctx context.Context) ([]store.Board, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Boards(ctx)
}

func (l *lateStore) RequestBoard(ctx context.Context, req store.BoardRequest) (store.Board, bool, error) {
	st, err := l.get()
	if err != nil {
		return store.Board{}, false, err
	}
	return st.RequestBoard(ctx, req)
}

func (l *lateStore) PlanBoard(ctx context.Context, plan store.BoardPlan, onClaim store.PlanTxFunc) (store.Board, bool, error) {
	st, err := l.get()
	if err != nil {
		return store.Board{}, false, err
	}
	return st.PlanBoard(ctx, plan, onClaim)
}

func (l *lateStore) Chunks(ctx context.Context, n int) ([]store.ChunkRecord, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Chunks(ctx, n)
}

func (l *lateStore) WriteChunk(ctx context.Context, w store.ChunkWrite, inTx store.TxFunc) (bool, error) {
	st, err := l.get()
	if err != nil {
		return false, err
	}
	return st.WriteChunk(ctx, w, inTx)
}

func (l *lateStore) TouchBoard(ctx context.Context, n int) error {
	st, err := l.get()
	if err != nil {
		return err
	}
	return st.TouchBoard(ctx, n)
}

func (l *lateStore) SeeWorker(ctx context.Context, id string) error {
	st, err := l.get()
	if err != nil {
		return err
	}
	return st.SeeWorker(ctx, id)
}

func (l *lateStore) Workers(ctx context.Context) ([]store.Worker, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Workers(ctx)
}

func (l *lateStore) ForgetWorker(ctx context.Context, id string) error {
	st, err := l.get()
	if err != nil {
		return err
	}
	return st.ForgetWorker(ctx, id)
}

func (l *lateStore) FinishBoard(ctx context.Context, n int) (store.Board, error) {
	st, err := l.get()
	if err != nil {
		return store.Board{}, err
	}
	return st.FinishBoard(ctx, n)
}

func (l *lateStore) FailBoard(ctx context.Context, n int, reason string) (store.Board, error) {
	st, err := l.get()
	if err != nil {
		return store.Board{}, err
	}
	return st.FailBoard(ctx, n, reason)
}

func (l *lateStore) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Page(ctx, req)
}

func (l *lateStore) CountSolutions(ctx context.Context, req store.CountRequest) (uint64, error) {
	st, err := l.get()
	if err != nil {
		return 0, err
	}
	return st.CountSolutions(ctx, req)
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

func (l *lateStore) Ping(ctx context.Context) error {
	st, err := l.get()
	if err != nil {
		return err
	}
	return st.Ping(ctx)
}

// Close does nothing: the store set is closed by whoever opened it.
func (l *lateStore) Close() error { return nil }

func (l *lateStore) RequestFilteredCount(ctx context.Context, req store.FilteredCountRequest, onCreate store.FilteredCountTxFunc) (store.FilteredCount, bool, error) {
	st, err := l.get()
	if err != nil {
		return store.FilteredCount{}, false, err
	}
	return st.RequestFilteredCount(ctx, req, onCreate)
}

func (l *lateStore) WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite, inTx store.TxFunc) (store.FilteredCount, error) {
	st, err := l.get()
	if err != nil {
		return store.FilteredCount{}, err
	}
	return st.WriteFilteredChunk(ctx, w, inTx)
}

func (l *lateStore) FailFilteredCount(ctx context.Context, n int, filter, reason string) (store.FilteredCount, error) {
	st, err := l.get()
	if err != nil {
		return store.FilteredCount{}, err
	}
	return st.FailFilteredCount(ctx, n, filter, reason)
}

func (l *lateStore) FilteredCount(ctx context.Context, n int, filter string) (store.FilteredCount, error) {
	st, err := l.get()
	if err != nil {
		return store.FilteredCount{}, err
	}
	return st.FilteredCount(ctx, n, filter)
}
