package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// testClosedStore: every method of a store that has been closed answers
// EUNAVAILABLE (its callers retry or report an outage), not an error
// they would take for a bug; with arguments that are right, so that no
// check answers first.
func testClosedStore[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	Load(ctx, t, s, 6, 2)
	chunks, err := solver.Chunks(7, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	p := solver.Placement{1, 3, 5, 0, 2, 4}
	calls := map[string]func() error{
		"Board":        func() error { _, err := s.Board(ctx, 6); return err },
		"Boards":       func() error { _, err := s.Boards(ctx); return err },
		"RequestBoard": func() error { _, _, err := s.RequestBoard(ctx, store.BoardRequest{N: 7}); return err },
		"PlanBoard": func() error {
			_, _, err := s.PlanBoard(ctx, store.BoardPlan{N: 7, ChunkDepth: 2, StoresSolutions: true, SolverVersion: SolverVersion}, nil)
			return err
		},
		"Chunks": func() error { _, err := s.Chunks(ctx, 6); return err },
		"WriteChunk": func() error {
			_, err := s.WriteChunk(ctx, store.ChunkWrite{Chunk: chunks[0], Solutions: chunks[0].Solutions()}, nil)
			return err
		},
		"TouchBoard":   func() error { return s.TouchBoard(ctx, 7) },
		"FinishBoard":  func() error { _, err := s.FinishBoard(ctx, 7); return err },
		"FailBoard":    func() error { _, err := s.FailBoard(ctx, 7, "a test"); return err },
		"SeeWorker":    func() error { return s.SeeWorker(ctx, "host-1_42_a1") },
		"Workers":      func() error { _, err := s.Workers(ctx); return err },
		"ForgetWorker": func() error { return s.ForgetWorker(ctx, "host-1_42_a1") },
		"Page": func() error {
			_, err := s.Page(ctx, store.PageRequest{N: 6, Direction: store.Forward, Limit: 2})
			return err
		},
		"SolutionAt": func() error { _, err := s.SolutionAt(ctx, 6, 1, false); return err },
		"Rank":       func() error { _, err := s.Rank(ctx, 6, p, false); return err },
		"Ping":       func() error { return s.Ping(ctx) },
	}
	if v, ok := s.(interface {
		SchemaVersion(context.Context) (uint, bool, error)
	}); ok {
		calls["SchemaVersion"] = func() error { _, _, err := v.SchemaVersion(ctx); return err }
	}
	for name, call := range calls {
		wantCode(t, call(), nqueens.EUNAVAILABLE, name+" on a closed store")
	}
}

// testUnmigratedStore: a store over a database no migration has touched
// (as an API-only process, which does not migrate, may meet) answers its
// reads EUNAVAILABLE, saying to run the migrations, rather than with a
// missing table's error taken for a bug.
func testUnmigratedStore[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx := b.ctx
	s := b.backend.NewDatabase(t).Open(t, true)
	calls := map[string]func() error{
		"Board":  func() error { _, err := s.Board(ctx, 6); return err },
		"Boards": func() error { _, err := s.Boards(ctx); return err },
		"Page": func() error {
			_, err := s.Page(ctx, store.PageRequest{N: 6, Direction: store.Forward, Limit: 2})
			return err
		},
		"SolutionAt": func() error { _, err := s.SolutionAt(ctx, 6, 1, false); return err },
	}
	for name, call := range calls {
		err := call()
		wantCode(t, err, nqueens.EUNAVAILABLE, name+" on an unmigrated database")
		if err != nil && !strings.Contains(err.Error(), "nqueens migrate up") {
			t.Errorf("%s on an unmigrated database: %q does not say to run the migrations", name, err)
		}
	}
}
