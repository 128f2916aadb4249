package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store"
)

// testMigrationsUpDownUp migrates a database down one step, down to
// nothing and up again: each step leaves the version it should, and the
// store works again after the last.
func testMigrationsUpDownUp[TTx any](t *testing.T, b *bundle[TTx]) {
	Load(b.ctx, t, b.store, 5, 1)
	// A board planned by tasks, which the step down from version 3 drops.
	if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: 6, Tasks: true, SolverVersion: SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	m := b.db.Migrator(t)
	latest, err := migrations.Latest(b.dialect)
	if err != nil {
		t.Fatal(err)
	}
	checkVersion(t, m, latest, "after Open")

	// Zero steps is not "all of them" (DownAll says that): it is refused,
	// and nothing changes.
	if err := m.Down(0); err == nil || !strings.Contains(err.Error(), "at least 1 step") {
		t.Errorf("Down(0): %v; want it refused", err)
	}
	checkVersion(t, m, latest, "after Down(0)")
	if err := m.Down(1); err != nil {
		t.Fatal(err)
	}
	previous, err := migrations.Previous(b.dialect, latest)
	if err != nil {
		t.Fatal(err)
	}
	checkVersion(t, m, previous, "one step down")
	// The last step down and up again keeps every row: an upgrade that
	// rebuilds a table must copy it whole.
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	checkVersion(t, m, latest, "one step down and up")
	board, err := b.store.Board(b.ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkBoardCounts(t, board, oeis.MustLoad(t)[5])
	for _, unique := range []bool{false, true} {
		if got, want := walk(t, b, 5, unique, 100, store.Forward), enumerate(5, unique); !samePlacements(got, want) {
			t.Errorf("N=5 unique=%t after one step down and up: %v, want %v", unique, got, want)
		}
	}
	if _, err := b.store.Board(b.ctx, 6); err != nil {
		t.Errorf("the board planned by tasks is lost one step down and up: %v", err)
	}

	if err := m.DownAll(); err != nil {
		t.Fatal(err)
	}
	checkVersion(t, m, 0, "all the way down")
	if _, err := b.store.Board(b.ctx, 5); err == nil {
		t.Error("Board works with no schema")
	}
	if err := m.DownAll(); err != nil {
		t.Errorf("down from nothing: %v", err)
	}

	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	checkVersion(t, m, latest, "up again")
	s := b.db.Open(t, true)
	_, err = s.Board(b.ctx, 5)
	wantCode(t, err, nqueens.ENOTFOUND, "Board(5) after down and up")
	checkBoardCounts(t, Load(b.ctx, t, s, 6, 1), oeis.MustLoad(t)[6])
}

// testSchemaVersion: the store reports the version the migrations left, 0
// before any (no table yet), and a migration that failed halfway.
func testSchemaVersion[TTx any](t *testing.T, b *bundle[TTx]) {
	db := b.backend.NewDatabase(t) // one no migration has touched
	s, ok := db.Open(t, true).(interface {
		SchemaVersion(context.Context) (version uint, dirty bool, err error)
	})
	if !ok {
		t.Fatal("the store has no SchemaVersion")
	}
	check := func(wantVersion uint, wantDirty bool) {
		t.Helper()
		v, dirty, err := s.SchemaVersion(b.ctx)
		if err != nil || v != wantVersion || dirty != wantDirty {
			t.Fatalf("SchemaVersion: %d, dirty %t, %v; want %d, dirty %t", v, dirty, err, wantVersion, wantDirty)
		}
	}
	check(0, false)
	if err := db.Migrator(t).Up(); err != nil {
		t.Fatal(err)
	}
	latest, err := migrations.Latest(b.dialect)
	if err != nil {
		t.Fatal(err)
	}
	check(latest, false)
	db.MarkDirty(t)
	check(latest, true)
}

func checkVersion(t *testing.T, m *migrations.Migrator, want uint, when string) {
	t.Helper()
	v, dirty, err := m.Version()
	if err != nil || dirty || v != want {
		t.Fatalf("%s: version %d (dirty %t), %v; want %d", when, v, dirty, err, want)
	}
}
