// Package storetest is the conformance suite of store.Store: one set of
// tests that every backend passes, so that both behave the same. A
// backend's test calls Run with a way to make fresh databases, typed by
// the backend's transaction:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Backend[pgx.Tx]{Dialect: migrations.Postgres, NewDatabase: newTestDatabase})
//	}
//
// Every expectation comes from the solver (enumeration, ranks, symmetry)
// or from the published counts (internal/oeis), never from the store.
package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Backend is what the suite needs from a backend.
type Backend[TTx any] struct {
	// Dialect names the backend's migrations.
	Dialect migrations.Dialect
	// NewDatabase returns a fresh, empty database of the test's own (a
	// schema, a file), removed when the test ends.
	NewDatabase func(t *testing.T) Database[TTx]
}

// Database is one test's database.
type Database[TTx any] struct {
	// Open opens a store over the database, migrating it unless
	// skipMigrations; the store is closed when the test ends.
	Open func(t *testing.T, skipMigrations bool) store.Store[TTx]
	// Migrator returns a migrator over the database, closed when the test
	// ends.
	Migrator func(t *testing.T) *migrations.Migrator
	// MarkDirty records in the database, as golang-migrate does, that its
	// last migration failed halfway.
	MarkDirty func(t *testing.T)
}

// SolverVersion is the solver version the suite plans boards with.
const SolverVersion = "storetest"

// Run runs the conformance suite. Every test runs in parallel with its own
// database.
func Run[TTx any](t *testing.T, b Backend[TTx]) {
	tests := []struct {
		name string
		run  func(*testing.T, *bundle[TTx])
	}{
		{"RoundTripPages", testRoundTripPages[TTx]},
		{"PagesFromAnyCursor", testPagesFromAnyCursor[TTx]},
		{"ConcurrentPages", testConcurrentPages[TTx]},
		{"FilteredWalks", testFilteredWalks[TTx]},
		{"FilterBadInput", testFilterBadInput[TTx]},
		{"RankAndSolutionAt", testRankAndSolutionAt[TTx]},
		{"IdempotentChunks", testIdempotentChunks[TTx]},
		{"ConcurrentDuplicateChunks", testConcurrentDuplicateChunks[TTx]},
		{"AtomicChunkCancelled", testAtomicChunkCancelled[TTx]},
		{"AtomicChunkInTxError", testAtomicChunkInTxError[TTx]},
		{"AtomicChunkBadSolution", testAtomicChunkBadSolution[TTx]},
		{"CountsOnlyBoard", testCountsOnlyBoard[TTx]},
		{"TaskBoard", testTaskBoard[TTx]},
		{"SquareCounts", testSquareCounts[TTx]},
		{"SquareCountsUnknown", testSquareCountsUnknown[TTx]},
		{"FilteredCounts", testFilteredCounts[TTx]},
		{"FilteredCountBadInput", testFilteredCountBadInput[TTx]},
		{"FilteredCountResume", testFilteredCountResume[TTx]},
		{"RankIndexChunks", testRankIndexChunks[TTx]},
		{"PlanHook", testPlanHook[TTx]},
		{"TouchBoard", testTouchBoard[TTx]},
		{"Workers", testWorkers[TTx]},
		{"BoardLifecycle", testBoardLifecycle[TTx]},
		{"BoardsByState", testBoardsByState[TTx]},
		{"RequestedBy", testRequestedBy[TTx]},
		{"BoardWithoutChunks", testBoardWithoutChunks[TTx]},
		{"BadInput", testBadInput[TTx]},
		{"MigrationsUpDownUp", testMigrationsUpDownUp[TTx]},
		{"SchemaVersion", testSchemaVersion[TTx]},
		{"ClosedStore", testClosedStore[TTx]},
		{"UnmigratedStore", testUnmigratedStore[TTx]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, setup(t, b))
		})
	}
}

// bundle is what one test works with.
type bundle[TTx any] struct {
	ctx     context.Context
	backend Backend[TTx]
	dialect migrations.Dialect
	db      Database[TTx]
	store   store.Store[TTx]
}

func setup[TTx any](t *testing.T, b Backend[TTx]) *bundle[TTx] {
	t.Helper()
	db := b.NewDatabase(t)
	return &bundle[TTx]{ctx: t.Context(), backend: b, dialect: b.Dialect, db: db, store: db.Open(t, false)}
}

// Load plans board n at the given chunk depth, writes every chunk computed
// by the solver, finishes the board and returns it. s is a store of
// either backend (WritesOf).
func Load(ctx context.Context, tb testing.TB, s store.Reader, n, depth int) store.Board {
	tb.Helper()
	w := WritesOf(tb, s)
	plan := store.BoardPlan{N: n, ChunkDepth: depth, StoresSolutions: true, SolverVersion: SolverVersion}
	if _, _, err := w.PlanBoard(ctx, plan); err != nil {
		tb.Fatalf("PlanBoard(%+v): %v", plan, err)
	}
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		tb.Fatal(err)
	}
	lasts := 0
	for _, c := range chunks {
		last, err := w.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()})
		if err != nil {
			tb.Fatalf("WriteChunk(%v): %v", c, err)
		}
		if last {
			lasts++
		}
	}
	if want := min(1, len(chunks)); lasts != want {
		tb.Fatalf("N=%d: %d writes reported the last chunk, want %d", n, lasts, want)
	}
	b, err := w.FinishBoard(ctx, n)
	if err != nil {
		tb.Fatalf("FinishBoard(%d): %v", n, err)
	}
	return b
}

// LoadRange loads boards lo..hi at their default chunk depths, and the
// count of hi under a filter (LoadFilteredCount), so that the analysts'
// examples have filtered counts to read.
func LoadRange(ctx context.Context, tb testing.TB, s store.Reader, lo, hi int) {
	tb.Helper()
	for n := lo; n <= hi; n++ {
		Load(ctx, tb, s, n, solver.DefaultChunkDepth(n))
	}
	if hi >= 4 {
		LoadFilteredCount(ctx, tb, s, hi, solver.Filter{Queens: []solver.Square{{Row: 0, Col: 1}}})
	}
}

// LoadFilteredCount stores the count of n under f, done: every chunk of
// solver.PlanFilteredCount counted and written.
func LoadFilteredCount(ctx context.Context, tb testing.TB, s store.Reader, n int, f solver.Filter) store.FilteredCount {
	tb.Helper()
	w := WritesOf(tb, s)
	plan, err := solver.PlanFilteredCount(n, f)
	if err != nil {
		tb.Fatal(err)
	}
	req := store.FilteredCountRequest{N: n, Filter: f, Chunks: len(plan.Chunks)}
	if _, _, err := w.RequestFilteredCount(ctx, req); err != nil {
		tb.Fatalf("RequestFilteredCount(%+v): %v", req, err)
	}
	var fc store.FilteredCount
	for i, c := range plan.Chunks {
		cw := store.FilteredChunkWrite{N: n, Filter: f, Index: i, Counts: c.CountFiltered(plan.Filter)}
		if fc, err = w.WriteFilteredChunk(ctx, cw); err != nil {
			tb.Fatalf("WriteFilteredChunk(%+v): %v", cw, err)
		}
	}
	return fc
}

// wantCode fails the test unless err carries the store error code.
func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	if got := nqueens.ErrorCode(err); got != code {
		t.Errorf("%s: error code %q (%v), want %q", what, got, err, code)
	}
}

// noTx reports whether a hook got the zero transaction: none.
func noTx[TTx any](tx TTx) bool { return reflect.ValueOf(&tx).Elem().IsZero() }
