package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/migrations"
)

// TestWorkerMigrateFalse: a worker told not to migrate (as docker-compose
// runs it, after its one-shot migrate service) leaves an empty database
// alone and stops with a message that says what to run; once the schema
// is migrated it works.
func TestWorkerMigrateFalse(t *testing.T) {
	t.Parallel()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}
	r := nqueensEnv(t, env, "worker", "--migrate=false")
	if r.code != exitFailure || !strings.Contains(r.stderr, "--migrate=false: the schema is at version 0, this binary expects") ||
		!strings.Contains(r.stderr, "(nqueens migrate up)") {
		t.Fatalf("worker --migrate=false over an empty database: exit %d, stderr %q", r.code, r.stderr)
	}
	if v := migrateVersion(t, env, migrations.SQLite, "version"); v != 0 {
		t.Errorf("worker --migrate=false migrated the database to version %d", v)
	}
	migrateVersion(t, env, migrations.SQLite, "up")
	w := startWorker(t, append(env, "NQUEENS_MIGRATE=false"))
	w.waitFor(t, 30*time.Second, `msg="worker started"`)
	w.stop(t)
}
