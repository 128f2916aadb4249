package export_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/testgate"
	"github.com/nqueens/nqueens/solver"
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

func first(rows [][]int64) []int64 {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}
