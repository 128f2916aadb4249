package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// maxStoredN is the largest board the tests store.
const maxStoredN = 9

// stores are the sources the tests export from: no store (the solver),
// SQLite and Postgres, each holding N=1..maxStoredN.
func stores(t *testing.T) map[string]export.Store {
	t.Helper()
	lite, pg := sqlitetest.OpenTemp(t), pgtest.OpenSchema(t)
	storetest.LoadRange(t.Context(), t, lite, 1, maxStoredN)
	storetest.LoadRange(t.Context(), t, pg, 1, maxStoredN)
	return map[string]export.Store{"solver": nil, "sqlite": lite, "postgres": pg}
}

// TestExportEqualsEnumeration exports N=1..9 in every format, all and
// unique, under random filters, from each source, and reads every line
// back: it must be the solver's enumeration, filtered by brute force.
func TestExportEqualsEnumeration(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 15))
	for name, st := range stores(t) {
		for n := 1; n <= maxStoredN; n++ {
			for i := range 6 {
				f := solver.Filter{}
				if i > 0 {
					f = randomFilter(rng, n)
				}
				for _, unique := range []bool{false, true} {
					want := enumerate(n, unique, f)
					for _, format := range []export.Format{export.CSV, export.NDJSON, export.Placement, export.Parquet} {
						req := export.Request{N: n, Unique: unique, Filter: f, Format: format}
						e, err := export.Plan(t.Context(), st, req, solver.MaxSearchN)
						if err != nil {
							t.Fatalf("%s: Plan(%+v): %v", name, req, err)
						}
						if wantSource := map[bool]export.Source{true: export.FromSolver, false: export.FromStore}[st == nil]; e.Source != wantSource {
							t.Errorf("%s: %+v from the %s, want the %s", name, req, e.Source, wantSource)
						}
						var out bytes.Buffer
						k, err := e.WriteTo(t.Context(), &out)
						if err != nil {
							t.Fatalf("%s: export %+v: %v", name, req, err)
						}
						got := parse(t, n, format, out.String())
						if format == export.Parquet {
							got = checkParquet(t, n, unique, out.Bytes())
						}
						if !slices.EqualFunc(got, want, func(p, q solver.Placement) bool { return p.Compare(q) == 0 }) || k != uint64(len(want)) {
							t.Errorf("%s: export %+v (filter %q): %d solutions (reported %d) %v, want %v", name, req, f, len(got), k, got, want)
						}
					}
				}
			}
		}
	}
}

// TestCSVReadByPython writes N=1..9 as CSV files from the SQLite store and
// reads them with Python's csv module: the header names the rows, and
// the rows are the enumeration.
func TestCSVReadByPython(t *testing.T) {
	t.Parallel()
	python := storetest.AnalystTool(t, "python3", "apt-get install -y python3")
	st := sqlitetest.OpenTemp(t)
	storetest.LoadRange(t.Context(), t, st, 1, maxStoredN)
	dir := t.TempDir()
	type file struct {
		n      int
		unique bool
		path   string
	}
	var files []file
	var paths []string
	for n := 1; n <= maxStoredN; n++ {
		for _, unique := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("n%d-%t.csv", n, unique))
			writeFile(t, st, path, export.Request{N: n, Unique: unique, Format: export.CSV})
			files = append(files, file{n, unique, path})
			paths = append(paths, path)
		}
	}
	// One process reads every file: each prints one JSON line.
	script := `import csv, json, sys
for path in sys.argv[1:]:
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        print(json.dumps({"header": header, "rows": [[int(v) for v in row] for row in r]}))`
	out, stderr, _, err := storetest.RunTool(t.Context(), storetest.HungToolBound, "", nil, python, append([]string{"-c", script}, paths...)...)
	if err != nil {
		t.Fatalf("python3 reading the files: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(files) {
		t.Fatalf("python3 printed %d lines for %d files: %q", len(lines), len(files), out)
	}
	for i, f := range files {
		var read struct {
			Header []string
			Rows   [][]int
		}
		if err := json.Unmarshal([]byte(lines[i]), &read); err != nil {
			t.Fatalf("python3's output %q: %v", lines[i], err)
		}
		if want := rowNames(f.n); !slices.Equal(read.Header, want) {
			t.Errorf("N=%d: header %v, want %v", f.n, read.Header, want)
		}
		want := enumerate(f.n, f.unique, solver.Filter{})
		if !slices.EqualFunc(read.Rows, want, func(row []int, p solver.Placement) bool { return slices.Equal(row, p) }) {
			t.Errorf("N=%d unique=%t: python3 read %d rows, want the %d of the enumeration", f.n, f.unique, len(read.Rows), len(want))
		}
	}
}

// TestCancelStops cancels exports as soon as they start writing: each
// returns the context's error having written a fraction of the board.
func TestCancelStops(t *testing.T) {
	t.Parallel()
	const n = 12 // 14,200 solutions
	st := sqlitetest.OpenTemp(t)
	storetest.Load(t.Context(), t, st, n, solver.DefaultChunkDepth(n))
	for name, st := range map[string]export.Store{"solver": nil, "sqlite": st} {
		for _, format := range []export.Format{export.CSV, export.Parquet} {
			ctx, cancel := context.WithCancel(t.Context())
			e, err := export.Plan(ctx, st, export.Request{N: n, Format: format}, n)
			if err != nil {
				t.Fatal(err)
			}
			// A Parquet export writes its first bytes only with its first
			// row group: it is told as it goes instead.
			e.Progress = func(uint64) { cancel() }
			k, err := e.WriteTo(ctx, cancelOnWrite{cancel})
			if !errors.Is(err, context.Canceled) || k >= 14_200 {
				t.Errorf("%s %v: a cancelled export wrote %d solutions and returned %v; want it stopped with context.Canceled", name, format, k, err)
			}
		}
	}
}

// cancelOnWrite cancels its context at the first write.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return len(p), nil
}

// TestPlanRefuses checks the answers to what cannot be exported.
func TestPlanRefuses(t *testing.T) {
	t.Parallel()
	st := sqlitetest.OpenTemp(t)
	for name, req := range map[string]export.Request{
		"N too small":                           {N: 0},
		"N too large":                           {N: solver.MaxSearchN + 1},
		"filter off board":                      {N: 6, Filter: solver.Filter{Queens: []solver.Square{{Row: 6, Col: 1}}}},
		"not stored, beyond the solver's bound": {N: 13},
	} {
		if _, err := export.Plan(t.Context(), st, req, 12); nqueens.ErrorCode(err) != nqueens.EINVALID {
			t.Errorf("%s: Plan(%+v) = %v, want EINVALID", name, req, err)
		}
	}
	if _, err := export.ParseFormat("xlsx"); nqueens.ErrorCode(err) != nqueens.EINVALID || !strings.Contains(err.Error(), "csv, ndjson, placement, parquet") {
		t.Errorf("ParseFormat(xlsx) = %v, want EINVALID naming the formats", err)
	}
}

func writeFile(t *testing.T, st export.Store, path string, req export.Request) {
	t.Helper()
	e, err := export.Plan(t.Context(), st, req, solver.MaxSearchN)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.WriteTo(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// parse reads an export back, checking the form of every line.
func parse(t *testing.T, n int, format export.Format, out string) []solver.Placement {
	t.Helper()
	if format == export.Parquet {
		return nil // binary: checkParquet reads it
	}
	var got []solver.Placement
	sc := bufio.NewScanner(strings.NewReader(out))
	first := true
	for sc.Scan() {
		line := sc.Text()
		var p solver.Placement
		switch format {
		case export.CSV:
			if first {
				first = false
				if want := strings.Join(rowNames(n), ","); line != want {
					t.Fatalf("CSV header %q, want %q", line, want)
				}
				continue
			}
			p = ints(t, strings.Split(line, ","))
		case export.Placement:
			p = ints(t, strings.Split(line, " "))
		case export.NDJSON:
			var obj struct {
				N         int   `json:"n"`
				Placement []int `json:"placement"`
			}
			dec := json.NewDecoder(strings.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&obj); err != nil || obj.N != n {
				t.Fatalf("NDJSON line %q: %v (n %d, want %d)", line, err, obj.N, n)
			}
			p = obj.Placement
		}
		got = append(got, p)
	}
	if format == export.CSV && first {
		t.Fatalf("CSV without a header: %q", out)
	}
	return got
}

func rowNames(n int) []string {
	names := make([]string, n)
	for r := range names {
		names[r] = "row" + strconv.Itoa(r)
	}
	return names
}

func ints(t *testing.T, fields []string) solver.Placement {
	t.Helper()
	p := make(solver.Placement, len(fields))
	for i, f := range fields {
		v, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("column %q: %v", f, err)
		}
		p[i] = v
	}
	return p
}

// enumerate is the solver's ordered list of all or canonical solutions of
// N that meet f (canonical ones with an image that meets it), by brute
// force.
func enumerate(n int, unique bool, f solver.Filter) []solver.Placement {
	seq := solver.All(n)
	if unique {
		seq = solver.AllUnique(n)
	}
	var out []solver.Placement
	for p := range seq {
		keep := f.Matches(p)
		if unique {
			keep = slices.ContainsFunc(solver.Images(p), func(im solver.Image) bool { return f.Matches(im.Placement) })
		}
		if keep {
			out = append(out, p.Clone())
		}
	}
	return out
}

// randomFilter is one or two queens and up to two empty squares anywhere.
func randomFilter(rng *rand.Rand, n int) solver.Filter {
	var f solver.Filter
	for range 1 + rng.IntN(2) {
		f.Queens = append(f.Queens, solver.Square{Row: rng.IntN(n), Col: rng.IntN(n)})
	}
	for range rng.IntN(3) {
		f.Empty = append(f.Empty, solver.Square{Row: rng.IntN(n), Col: rng.IntN(n)})
	}
	return f
}
