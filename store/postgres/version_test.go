package postgres_test

import (
	"testing"

	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// TestSchemaVersion: the store reports the version the migrations left,
// 0 before any, and a migration that failed halfway.
func TestSchemaVersion(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	s := open(t, u, true)
	check := func(wantVersion uint, wantDirty bool) {
		t.Helper()
		v, dirty, err := s.SchemaVersion(t.Context())
		if err != nil || v != wantVersion || dirty != wantDirty {
			t.Fatalf("SchemaVersion: %d, dirty %t, %v; want %d, dirty %t", v, dirty, err, wantVersion, wantDirty)
		}
	}
	check(0, false)
	m, err := postgres.NewMigrator(u)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	latest, err := migrations.Latest(migrations.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	check(latest, false)
	if _, err := s.Pool().Exec(t.Context(), "UPDATE schema_migrations SET dirty = true"); err != nil {
		t.Fatal(err)
	}
	check(latest, true)
}
