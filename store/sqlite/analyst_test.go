package sqlite_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// The tests of this file read a database file of the store with what
// analysts use rather than the service's driver: the sqlite3 shell and
// Python's sqlite3 module (both on the system's SQLite), and SQLite 3.31.1,
// the oldest the schema is written for. Each must parse the whole schema
// (one object it cannot parse fails every statement), find the file sound,
// and give every SQLite example of docs/schema.md the driver's rows.
//
// The file is a small one of the test's own, or the one that
// NQUEENS_ANALYST_SQLITE_PATH names (CI: N=1..15, from nqueens precompute),
// where each example must answer in the shell within
// storetest.ExampleBound; those runs take their time alone, not in
// parallel.

// analystFile is the file the tools read and the bound of one example.
func analystFile(t *testing.T) (path string, bound time.Duration) {
	t.Helper()
	path, bound = storetest.AnalystData("NQUEENS_ANALYST_SQLITE_PATH")
	if path != "" {
		return path, bound
	}
	t.Parallel()
	return smallServiceFile(t), bound
}

// smallServiceFile writes N=1..8 through the store into a file of the
// test's own, with River's tables beside the store's as the service
// writes them (an analyst's SQLite must parse those too), and closes it:
// nothing stays in the write-ahead log, which SQLite 3.31 in sql.js does
// not read.
func smallServiceFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	st := sqlitetest.Open(t, path)
	defer st.Close()
	if err := precompute.MigrateUp(t.Context(), riversqlite.New(st.Writer())); err != nil {
		t.Fatal(err)
	}
	storetest.LoadRange(t.Context(), t, st, 1, 8)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readerReport is what analyst.py and sqlite-3.31/read.js print.
type readerReport struct {
	Version        string   `json:"version"`
	Objects        []string `json:"objects"`
	IntegrityCheck []string `json:"integrity_check"`
	Examples       []struct {
		Rows    [][]any `json:"rows"`
		Seconds float64 `json:"seconds"`
		Error   string  `json:"error"`
	} `json:"examples"`
}

// driverView is what the service's driver reads in the file: its tables
// and views (what the shell's .tables lists) and the rows of every
// example, each value written as the readers write it.
type driverView struct {
	objects []string
	rows    [][][]any
}

func readWithDriver(t *testing.T, path string, queries []string) driverView {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v driverView
	objects := queryValues(t, db, `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')
		AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	for _, row := range objects {
		v.objects = append(v.objects, row[0].(string))
	}
	for _, q := range queries {
		rows := queryValues(t, db, q)
		if len(rows) == 0 {
			t.Errorf("the driver reads no rows from\n%s", q)
		}
		v.rows = append(v.rows, rows)
	}
	return v
}

func queryValues(t *testing.T, db *sql.DB, query string) [][]any {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatalf("%s\n: %v", query, err)
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		values := make([]any, len(columns))
		ptrs := make([]any, len(columns))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range values {
			values[i] = readerValue(v)
		}
		out = append(out, values)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s\n: %v", query, err)
	}
	return out
}

// readerValue writes a value as the readers do: NULL as nil, a blob as
// x'HEX', a number in decimal, an integral real as an integer.
func readerValue(v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case []byte:
		return fmt.Sprintf("x'%X'", v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}

// TestSQLiteShellReadsTheFile opens the file with the sqlite3 shell, read
// only, and runs .tables, PRAGMA integrity_check and every example, each
// in a shell of its own within the bound.
func TestSQLiteShellReadsTheFile(t *testing.T) {
	shell := storetest.AnalystTool(t, "sqlite3", "install Debian's: apt-get install -y sqlite3")
	path, bound := analystFile(t)
	queries := storetest.SchemaExamples(t, "sqlite")
	want := readWithDriver(t, path, queries)
	// Rows end with the record separator: a board spans several lines.
	const rowEnd = "\x1e"
	run := func(input string, bound time.Duration) (string, time.Duration, error) {
		stdout, stderr, took, err := storetest.RunTool(t.Context(), bound, input, nil,
			shell, "-readonly", "-bail", "-list", "-newline", rowEnd, path)
		if stderr != "" {
			err = errors.Join(err, fmt.Errorf("standard error: %s", stderr))
		}
		return stdout, took, err
	}

	version, _, err := run("SELECT sqlite_version();", storetest.HungToolBound)
	if err != nil {
		t.Fatalf("sqlite3 cannot read %s: %v", path, err)
	}
	t.Logf("sqlite3 shell, SQLite %s, %s", strings.TrimSuffix(version, rowEnd), path)
	tables, _, err := run(".tables", storetest.HungToolBound)
	if got := strings.Fields(strings.ReplaceAll(tables, rowEnd, " ")); err != nil || !sameSet(got, want.objects) {
		t.Errorf(".tables: %q, %v; want the driver's %q", got, err, want.objects)
	}
	if check, _, err := run("PRAGMA integrity_check;", storetest.HungToolBound); err != nil || check != "ok"+rowEnd {
		t.Errorf("PRAGMA integrity_check: %q, %v; want ok", check, err)
	}
	for i, q := range queries {
		out, took, err := run(q, bound)
		if err != nil {
			t.Errorf("example %d\n%s\n: %v", i+1, q, err)
			continue
		}
		t.Logf("example %d: %d rows in %s", i+1, strings.Count(out, rowEnd), took.Round(time.Millisecond))
		if got := strings.Count(out, rowEnd); got != len(want.rows[i]) {
			t.Errorf("example %d\n%s\n: %d rows in the shell, %d with the driver", i+1, q, got, len(want.rows[i]))
		}
	}
}

// TestPythonReadsTheFile opens the file with Python's sqlite3 module, read
// only (testdata/analyst.py): it lists the tables and views, finds the
// file sound and reads the driver's rows from every example.
func TestPythonReadsTheFile(t *testing.T) {
	python := storetest.AnalystTool(t, "python3", "install Debian's: apt-get install -y python3")
	path, _ := analystFile(t)
	queries := storetest.SchemaExamples(t, "sqlite")
	report := readWith(t, queries, python, filepath.Join("testdata", "analyst.py"), path)
	t.Logf("Python's sqlite3, SQLite %s, %s", report.Version, path)
	checkReport(t, report, readWithDriver(t, path, queries), queries, nil)
}

// TestSQLite331ReadsTheFile opens the file with SQLite 3.31.1 (sql.js 1.2.2
// in node, testdata/sqlite-3.31): the oldest SQLite the schema is written
// for must parse all of it, find the file sound and read the driver's
// rows from every example, but those that need a part this build of
// SQLite leaves out and system builds have (dbstat, JSON).
func TestSQLite331ReadsTheFile(t *testing.T) {
	node := storetest.AnalystTool(t, "node", "install Debian's: apt-get install -y nodejs npm")
	dir := filepath.Join("testdata", "sqlite-3.31")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "sql.js", "package.json")); err != nil {
		storetest.MissingAnalystTool(t, "SQLite 3.31 (sql.js) is not installed ("+err.Error()+"); run: npm ci --prefix store/sqlite/testdata/sqlite-3.31")
	}
	path, _ := analystFile(t)
	queries := storetest.SchemaExamples(t, "sqlite")
	report := readWith(t, queries, node, filepath.Join(dir, "read.js"), path)
	if report.Version != "3.31.1" {
		t.Fatalf("read.js ran SQLite %s, want 3.31.1", report.Version)
	}
	optional := []string{"no such table: dbstat", "no such function: json"}
	checkReport(t, report, readWithDriver(t, path, queries), queries, optional)
}

// readWith runs a reader script over the file with the examples on its
// standard input and decodes its report.
func readWith(t *testing.T, queries []string, tool, script, path string) readerReport {
	t.Helper()
	input, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _, err := storetest.RunTool(t.Context(), storetest.HungToolBound, string(input), nil, tool, script, path)
	if err != nil {
		t.Fatalf("%s %s %s: %v\n%s", filepath.Base(tool), script, path, err, stderr)
	}
	var report readerReport
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(tool), script, err, stdout)
	}
	return report
}

// checkReport compares a reader's report with what the driver reads.
// Examples that fail with one of the optional errors are logged.
func checkReport(t *testing.T, report readerReport, want driverView, queries, optional []string) {
	t.Helper()
	if !sameSet(report.Objects, want.objects) {
		t.Errorf("tables and views: %q; the driver's: %q", report.Objects, want.objects)
	}
	if !reflect.DeepEqual(report.IntegrityCheck, []string{"ok"}) {
		t.Errorf("PRAGMA integrity_check: %q, want ok", report.IntegrityCheck)
	}
	if len(report.Examples) != len(queries) {
		t.Fatalf("%d examples reported, want %d", len(report.Examples), len(queries))
	}
	for i, ex := range report.Examples {
		switch {
		case ex.Error != "" && slices.ContainsFunc(optional, func(p string) bool { return strings.HasPrefix(ex.Error, p) }):
			t.Logf("example %d needs what this SQLite leaves out: %s", i+1, ex.Error)
		case ex.Error != "":
			t.Errorf("example %d\n%s\n: %s", i+1, queries[i], ex.Error)
		case !reflect.DeepEqual(ex.Rows, want.rows[i]):
			t.Errorf("example %d\n%s\n: rows %q\nthe driver's %q", i+1, queries[i], ex.Rows, want.rows[i])
		default:
			t.Logf("example %d: %d rows in %.1f ms", i+1, len(ex.Rows), ex.Seconds*1000)
		}
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
