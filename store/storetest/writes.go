package storetest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/store"
)

// Writes are a store's writes without their transaction hooks, whichever
// its backend: what the tests of other packages, which hold either
// backend as a store.Reader, fill a store with.
type Writes interface {
	RequestBoard(ctx context.Context, req store.BoardRequest) (store.Board, bool, error)
	PlanBoard(ctx context.Context, plan store.BoardPlan) (store.Board, bool, error)
	WriteChunk(ctx context.Context, w store.ChunkWrite) (bool, error)
	FinishBoard(ctx context.Context, n int) (store.Board, error)
	FailBoard(ctx context.Context, n int, reason string) (store.Board, error)
	RequestFilteredCount(ctx context.Context, req store.FilteredCountRequest) (store.FilteredCount, bool, error)
	WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite) (store.FilteredCount, error)
}

// WritesOf returns the writes of s, a store of either backend (or one
// that embeds it).
func WritesOf(tb testing.TB, s store.Reader) Writes {
	tb.Helper()
	switch w := s.(type) {
	case store.Writer[pgx.Tx]:
		return hookless[pgx.Tx]{w}
	case store.Writer[*sql.Tx]:
		return hookless[*sql.Tx]{w}
	}
	tb.Fatalf("storetest: %T writes in no transaction type storetest knows", s)
	return nil
}

// hookless is a Writer[TTx] as Writes.
type hookless[TTx any] struct{ w store.Writer[TTx] }

func (h hookless[TTx]) RequestBoard(ctx context.Context, req store.BoardRequest) (store.Board, bool, error) {
	return h.w.RequestBoard(ctx, req)
}

func (h hookless[TTx]) PlanBoard(ctx context.Context, plan store.BoardPlan) (store.Board, bool, error) {
	return h.w.PlanBoard(ctx, plan, nil)
}

func (h hookless[TTx]) WriteChunk(ctx context.Context, w store.ChunkWrite) (bool, error) {
	return h.w.WriteChunk(ctx, w, nil)
}

func (h hookless[TTx]) FinishBoard(ctx context.Context, n int) (store.Board, error) {
	return h.w.FinishBoard(ctx, n)
}

func (h hookless[TTx]) FailBoard(ctx context.Context, n int, reason string) (store.Board, error) {
	return h.w.FailBoard(ctx, n, reason)
}

func (h hookless[TTx]) RequestFilteredCount(ctx context.Context, req store.FilteredCountRequest) (store.FilteredCount, bool, error) {
	return h.w.RequestFilteredCount(ctx, req, nil)
}

func (h hookless[TTx]) WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite) (store.FilteredCount, error) {
	return h.w.WriteFilteredChunk(ctx, w, nil)
}
