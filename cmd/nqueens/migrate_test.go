package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// migrateVersion runs "nqueens migrate ACTION" and returns the version it
// reports, checking the latest version it reports too.
func migrateVersion(t *testing.T, env []string, d migrations.Dialect, args ...string) int {
	t.Helper()
	r := nqueensEnv(t, env, append([]string{"migrate"}, args...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("nqueens migrate %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
	}
	kv := map[string]string{}
	for line := range strings.Lines(r.stdout) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		kv[k] = v
	}
	latest, err := migrations.Latest(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(kv["database"], string(d)) || kv["latest"] != strconv.Itoa(int(latest)) || kv["dirty"] != "false" {
		t.Fatalf("nqueens migrate %s printed %q; want database %s, latest %d, dirty false", strings.Join(args, " "), r.stdout, d, latest)
	}
	v, err := strconv.Atoi(kv["version"])
	if err != nil {
		t.Fatalf("nqueens migrate %s printed %q: no version", strings.Join(args, " "), r.stdout)
	}
	return v
}

// checkMigrate walks a fresh database up, down a step, all the way down
// and up again.
func checkMigrate(t *testing.T, env []string, d migrations.Dialect) {
	latest, err := migrations.Latest(d)
	if err != nil {
		t.Fatal(err)
	}
	previous, err := migrations.Previous(d, latest)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		args    []string
		version int
	}{
		{[]string{"version"}, 0},
		{[]string{"up"}, int(latest)},
		{[]string{"up"}, int(latest)},
		{[]string{"down"}, int(previous)},
		{[]string{"down", "--all"}, 0},
		{[]string{"up"}, int(latest)},
		{[]string{"version"}, int(latest)},
	}
	for _, w := range want {
		if got := migrateVersion(t, env, d, w.args...); got != w.version {
			t.Errorf("nqueens migrate %s: version %d, want %d", strings.Join(w.args, " "), got, w.version)
		}
	}
}

func TestMigrateSQLite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	checkMigrate(t, []string{"NQUEENS_SQLITE_PATH=" + path}, migrations.SQLite)
}

func TestMigratePostgres(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	checkMigrate(t, []string{"DATABASE_URL=" + u}, migrations.Postgres)
}

func TestMigrateBadUsage(t *testing.T) {
	t.Parallel()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}
	for _, args := range [][]string{{"migrate"}, {"migrate", "sideways"}, {"migrate", "up", "down"}, {"migrate", "up", "--all"}, {"migrate", "--steps", "2"}} {
		if r := nqueensEnv(t, env, args...); r.code != exitUsage || !strings.Contains(r.stderr, "nqueens migrate") {
			t.Errorf("nqueens %s: exit %d, stderr %q; want a usage error", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	r := nqueensEnv(t, []string{"DATABASE_URL=postgres://postgres@127.0.0.1:1/x?sslmode=disable"}, "migrate", "version")
	if r.code != exitFailure || !strings.Contains(r.stderr, "connect") {
		t.Errorf("nqueens migrate version with an unreachable server: exit %d, stderr %q; want failure", r.code, r.stderr)
	}
}
