package export_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/testgate"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// readers is the Node project of the readers analysts open the Parquet
// export with (package.json, read.mjs).
var readers = filepath.Join("testdata", "readers")

// TestParquetReadByDuckDBAndHyparquet writes the Parquet exports of
// N=1..12, all and unique, and filtered ones, and reads each file with
// DuckDB (@duckdb/node-api) and with hyparquet (pure JavaScript, as a
// browser runs it): both read the solver's enumeration, each row with its
// rank, DuckDB the row columns as TINYINT and the rank as BIGINT. It
// needs node and the packages (npm ci in export/testdata/readers);
// without them it skips, unless NQUEENS_REQUIRE_PARQUET_READERS=1 (as
// .ci/run sets it).
func TestParquetReadByDuckDBAndHyparquet(t *testing.T) {
	t.Parallel()
	node := readersNode(t)

	type file struct {
		req  export.Request
		path string
		want [][]int64 // rank, row0, …
	}
	var files []file
	var paths []string
	dir := t.TempDir()
	add := func(req export.Request) {
		req.Format = export.Parquet
		path := filepath.Join(dir, fmt.Sprintf("n%d-%t-%s.parquet", req.N, req.Unique, req.Filter.Key()))
		writeFile(t, nil, path, req)
		var want [][]int64
		kept := enumerate(req.N, req.Unique, req.Filter)
		for i, p := range enumerate(req.N, req.Unique, solver.Filter{}) {
			if len(kept) > 0 && p.Compare(kept[0]) == 0 {
				kept = kept[1:]
				row := []int64{int64(i + 1)}
				for _, c := range p {
					row = append(row, int64(c))
				}
				want = append(want, row)
			}
		}
		files = append(files, file{req, path, want})
		paths = append(paths, path)
	}
	for n := 1; n <= 12; n++ {
		for _, unique := range []bool{false, true} {
			add(export.Request{N: n, Unique: unique})
		}
	}
	for _, where := range []string{"q0.3,e1.1", "q2.5"} {
		f, err := solver.ParseFilter(where)
		if err != nil {
			t.Fatal(err)
		}
		for _, unique := range []bool{false, true} {
			add(export.Request{N: 10, Unique: unique, Filter: f})
		}
	}

	out, stderr, _, err := storetest.RunTool(t.Context(), storetest.HungToolBound, "", nil, node, append([]string{filepath.Join(readers, "read.mjs")}, paths...)...)
	if err != nil {
		t.Fatalf("node read.mjs: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(files) {
		t.Fatalf("read.mjs printed %d lines for %d files: %.500q", len(lines), len(files), out)
	}
	for i, f := range files {
		var read struct {
			File   string
			DuckDB struct {
				Columns   [][2]string
				Rows      [][]int64
				RowGroups int
			}
			Hyparquet struct {
				Columns []string
				Rows    [][]int64
			}
		}
		if err := json.Unmarshal([]byte(lines[i]), &read); err != nil || read.File != f.path {
			t.Fatalf("read.mjs's line %d (%v): %.300q, want %s", i, err, lines[i], f.path)
		}
		what := fmt.Sprintf("N=%d unique=%t where=%q", f.req.N, f.req.Unique, f.req.Filter.Key())
		names := append([]string{"rank"}, rowNames(f.req.N)...)
		var duckColumns [][2]string
		for i, name := range names {
			duckColumns = append(duckColumns, [2]string{name, map[bool]string{true: "BIGINT", false: "TINYINT"}[i == 0]})
		}
		if !slices.Equal(read.DuckDB.Columns, duckColumns) || !slices.Equal(read.Hyparquet.Columns, names) {
			t.Errorf("%s: DuckDB's columns %v, hyparquet's %v; want %v", what, read.DuckDB.Columns, read.Hyparquet.Columns, duckColumns)
		}
		equal := func(a, b []int64) bool { return slices.Equal(a, b) }
		if !slices.EqualFunc(read.DuckDB.Rows, f.want, equal) {
			t.Errorf("%s: DuckDB read %d rows, want the %d of the enumeration (first %v, want %v)", what, len(read.DuckDB.Rows), len(f.want), first(read.DuckDB.Rows), first(f.want))
		}
		if !slices.EqualFunc(read.Hyparquet.Rows, f.want, equal) {
			t.Errorf("%s: hyparquet read %d rows, want the %d of the enumeration (first %v, want %v)", what, len(read.Hyparquet.Rows), len(f.want), first(read.Hyparquet.Rows), first(f.want))
		}
		if want := min(len(f.want), 1); read.DuckDB.RowGroups != want {
			t.Errorf("%s: %d row groups, want %d (%d rows, fewer than export.ParquetRowGroupRows)", what, read.DuckDB.RowGroups, want, len(f.want))
		}
	}
}

// readersNode is the path of node once the readers' packages are
// installed; without them the test skips, or fails under
// NQUEENS_REQUIRE_PARQUET_READERS=1.
func readersNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	for _, pkg := range []string{"@duckdb/node-api", "hyparquet"} {
		if err == nil {
			_, err = os.Stat(filepath.Join(readers, "node_modules", pkg, "package.json"))
		}
	}
	if err != nil {
		testgate.Suite{
			Name:    "the Parquet readers (DuckDB, hyparquet)",
			Require: "NQUEENS_REQUIRE_PARQUET_READERS",
			Enable:  "install Node.js and npm (apt-get install -y nodejs npm), then run: npm ci --prefix export/testdata/readers",
		}.Missing(t, "they need node and their packages ("+err.Error()+")")
	}
	return node
}

// TestParquetRangesReadByHyparquet serves N=12 from a SQLite store and has
// hyparquet read two of its 13 columns from the URL, as a page would: it
// reads the enumeration's ranks and first rows, every GET a range answered
// 206, and fetches less than half of the file.
func TestParquetRangesReadByHyparquet(t *testing.T) {
	t.Parallel()
	node := readersNode(t)
	const n = 12
	st := sqlitetest.OpenTemp(t)
	storetest.Load(t.Context(), t, st, n, solver.DefaultChunkDepth(n))
	b := apitest.Setup(t, func(c *server.Config) {
		c.ExportStore = st
		c.ParquetDir = t.TempDir()
	})
	url := fmt.Sprintf("%s/export/%d.parquet", b.Base, n)
	out, stderr, _, err := storetest.RunTool(t.Context(), storetest.HungToolBound, "", nil, node, filepath.Join(readers, "range.mjs"), url)
	if err != nil {
		t.Fatalf("node range.mjs %s: %v\n%s", url, err, stderr)
	}
	var read struct {
		Size     int64
		Requests []struct {
			Method, Range  string
			Status, Length int
		}
		Rows [][2]int64
	}
	if err := json.Unmarshal([]byte(out), &read); err != nil {
		t.Fatalf("range.mjs printed %.300q: %v", out, err)
	}
	var want [][2]int64
	for i, p := range enumerate(n, false, solver.Filter{}) {
		want = append(want, [2]int64{int64(i + 1), int64(p[0])})
	}
	if !slices.Equal(read.Rows, want) {
		t.Errorf("hyparquet read %d rows of rank and row0 from %s, want the %d of the enumeration", len(read.Rows), url, len(want))
	}
	fetched := 0
	for _, r := range read.Requests {
		if r.Method == http.MethodGet {
			fetched += r.Length
			if r.Range == "" || r.Status != http.StatusPartialContent {
				t.Errorf("hyparquet's GET %q: %d; want ranges answered 206", r.Range, r.Status)
			}
		}
	}
	if fetched == 0 || int64(fetched) > read.Size/2 {
		t.Errorf("hyparquet fetched %d bytes of the %d-byte file in %d requests (%v); want less than half", fetched, read.Size, len(read.Requests), read.Requests)
	}
	t.Logf("hyparquet read rank and row0 of N=%d: %d of %d bytes in %d requests", n, fetched, read.Size, len(read.Requests))
}

func first(rows [][]int64) []int64 {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}
