package postgres_test

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestPsqlRunsTheExamples runs every Postgres example of docs/schema.md
// through psql, each in a psql of its own, and checks that it gives the
// driver's number of rows. The database is a schema of the test's own
// holding N=1..8, or the one NQUEENS_ANALYST_DATABASE_URL names (CI:
// N=1..14, from nqueens precompute), where each example must answer
// within storetest.ExampleBound; those runs take their time alone, not in
// parallel.
func TestPsqlRunsTheExamples(t *testing.T) {
	psql := psqlBinary(storetest.AnalystTool(t, "psql", "install Debian's: apt-get install -y postgresql-client"))
	url, bound := storetest.AnalystData("NQUEENS_ANALYST_DATABASE_URL")
	var conn *pgx.Conn
	var env []string
	if url == "" {
		t.Parallel()
		var schema string
		conn, schema = loadedSchema(t)
		// libpq takes no search_path in a URL, and the test schema is not
		// the role's: the server is told on connection.
		url, env = pgtest.ServerURL(t), []string{"PGOPTIONS=-c search_path=" + schema}
	} else {
		var err error
		if conn, err = pgx.Connect(t.Context(), url); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(t.Context()) })
	}

	version, _, _, err := storetest.RunTool(t.Context(), bound, "", env, psql, "--version")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", psql, strings.TrimSpace(version))
	for i, q := range storetest.SchemaExamples(t, "postgres") {
		want := countRows(t, conn, q)
		// Unaligned, rows only, each ended by a zero byte: a board spans
		// several lines.
		out, stderr, took, err := storetest.RunTool(t.Context(), bound, q, env,
			psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-0", "-d", url)
		if stderr != "" {
			err = errors.Join(err, fmt.Errorf("standard error: %s", stderr))
		}
		if err != nil {
			t.Errorf("example %d\n%s\n: %v", i+1, q, err)
			continue
		}
		got := strings.Count(out, "\x00")
		t.Logf("example %d: %d rows in %s", i+1, got, took.Round(time.Millisecond))
		if got != want || got == 0 {
			t.Errorf("example %d\n%s\n: %d rows through psql, %d with the driver; want the same, not none", i+1, q, got, want)
		}
	}
}

func countRows(t *testing.T, conn *pgx.Conn, query string) int {
	t.Helper()
	rows, err := conn.Query(t.Context(), query)
	if err != nil {
		t.Fatalf("%s\n: %v", query, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s\n: %v", query, err)
	}
	return n
}

// psqlBinary is the psql program that the psql on PATH runs. Debian's is
// pg_wrapper, a Perl script that picks the newest installed version's
// binary; its start alone can take a few hundred milliseconds on a loaded
// machine, which the bound of an example is not about.
func psqlBinary(onPath string) string {
	resolved, err := filepath.EvalSymlinks(onPath)
	if err != nil || filepath.Base(resolved) != "pg_wrapper" {
		return onPath
	}
	versions, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
	slices.SortFunc(versions, func(a, b string) int { return cmp.Compare(pgVersion(a), pgVersion(b)) })
	if len(versions) == 0 {
		return onPath
	}
	return versions[len(versions)-1]
}

// pgVersion is the major version in /usr/lib/postgresql/VERSION/bin/psql.
func pgVersion(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}
