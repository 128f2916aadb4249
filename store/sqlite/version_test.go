package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store/sqlite"
)

// TestSchemaVersion: the store reports the version the migrations left,
// 0 before any, and a migration that failed halfway.
func TestSchemaVersion(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	s := open(t, path, true)
	check := func(wantVersion uint, wantDirty bool) {
		t.Helper()
		v, dirty, err := s.SchemaVersion(t.Context())
		if err != nil || v != wantVersion || dirty != wantDirty {
			t.Fatalf("SchemaVersion: %d, dirty %t, %v; want %d, dirty %t", v, dirty, err, wantVersion, wantDirty)
		}
	}
	check(0, false)
	m, err := sqlite.NewMigrator(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	latest, err := migrations.Latest(migrations.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	check(latest, false)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE schema_migrations SET dirty = 1"); err != nil {
		t.Fatal(err)
	}
	check(latest, true)
}
