package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// TestExportFromSolver exports boards no database holds: the solver's
// enumeration, and no SQLite file created on the way.
func TestExportFromSolver(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "none.db")
	env := []string{"NQUEENS_SQLITE_PATH=" + path}
	for _, n := range []int{1, 6, 8} {
		r := nqueensEnv(t, env, "export", strconv.Itoa(n), "--format", "placement")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("export %d: exit %d, stderr %q", n, r.code, r.stderr)
		}
		if want := ok(t, "solve", strconv.Itoa(n), "--all"); r.stdout != want {
			t.Errorf("export %d --format placement = %q, want solve --all's %q", n, r.stdout, want)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("export created the SQLite file %s (%v)", path, err)
	}
}

// TestExportFromStore computes N=8 into a SQLite file, then exports it to
// a file, under a filter: the solutions come from the store, and are the
// enumeration's that match.
func TestExportFromStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(dir, "nqueens.db")}
	if r := nqueensEnv(t, env, "precompute", "8", "--wait"); r.code != 0 {
		t.Fatalf("precompute 8 --wait: exit %d, %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "n8.csv")
	r := nqueensEnv(t, env, "export", "8", "--where", "q0.3,e1.1", "--output", out)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "from the store") {
		t.Fatalf("export 8 --output: exit %d, stdout %q, stderr %q; want a summary that says from the store", r.code, r.stdout, r.stderr)
	}
	f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 3}}, Empty: []solver.Square{{Row: 1, Col: 1}}}
	var want strings.Builder
	want.WriteString("row0,row1,row2,row3,row4,row5,row6,row7\n")
	for p := range solver.All(8) {
		if f.Matches(p) {
			want.WriteString(p.String()) // 1,3,0,2
			want.WriteString("\n")
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() {
		t.Errorf("export 8 --where q0.3,e1.1 wrote\n%s\nwant\n%s", got, want.String())
	}
}

// TestExportBadUsage: bad arguments are exit 2 with what is allowed.
func TestExportBadUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export"}, "missing N"},
		{[]string{"export", "33"}, "from 1 to 32"},
		{[]string{"export", "8", "--format", "xml"}, "formats are csv, ndjson, placement, parquet"},
		{[]string{"export", "8", "--where", "z1.1"}, "write q<row>.<col>"},
		{[]string{"export", "8", "--where", "q8.0"}, "rows and columns of N=8 go from 0 to 7"},
	} {
		r := runCLI(t, c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("nqueens %s: exit %d, stderr %q; want exit %d saying %q", strings.Join(c.args, " "), r.code, r.stderr, exitUsage, c.want)
		}
	}
}

// TestExportSaysItsSizeAndStops: export --output says up front how many
// solutions, lines and bytes it will write (the file then has exactly
// those), and an interrupt stops it cleanly: exit 130, the partial file
// removed, how far it got said.
func TestExportSaysItsSizeAndStops(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	env := []string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "none.db")}
	path := filepath.Join(t.TempDir(), "n11.csv")
	r := nqueensEnv(t, env, "export", "11", "--output", path)
	data, err := os.ReadFile(path)
	if r.code != 0 || err != nil {
		t.Fatalf("export 11: exit %d, %v; stderr %q", r.code, err, r.stderr)
	}
	want := fmt.Sprintf("N=11, %d solutions from the solver: %d lines, %d bytes", ref[11].Total, ref[11].Total+1, len(data))
	if !strings.Contains(r.stderr, want) || strings.Count(string(data), "\n") != int(ref[11].Total)+1 {
		t.Errorf("stderr %q; want it to say %q (the file has %d lines)", r.stderr, want, strings.Count(string(data), "\n"))
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr apitest.SyncBuffer
	big := filepath.Join(t.TempDir(), "n16.csv")
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"export", "16", "--output", big}, console{lookupEnv: lookupIn(env), stdout: &stdout, stderr: &stderr})
	}()
	eventually.True(t, time.Minute, func() string {
		if fi, err := os.Stat(big); err != nil || fi.Size() == 0 {
			return fmt.Sprintf("nothing written to %s yet; stderr %q", big, stderr.String())
		}
		return ""
	})
	cancel()
	if got := <-code; got != exitInterrupted {
		t.Errorf("interrupted export: exit %d, want %d; stderr %q", got, exitInterrupted, stderr.String())
	}
	if _, err := os.Stat(big); !os.IsNotExist(err) {
		t.Errorf("the partial file is still there (%v)", err)
	}
	if !strings.Contains(stderr.String(), "stopped after ") || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q; want it to say how far it got and that it was interrupted", stderr.String())
	}
}

// TestExportParquet computes N=8 into a SQLite file, then exports it as
// Parquet under a filter and unique from the solver: parquet-go reads
// back the enumeration's solutions with their ranks, and the summary says
// the file's size.
func TestExportParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(dir, "nqueens.db")}
	if r := nqueensEnv(t, env, "precompute", "8", "--wait"); r.code != 0 {
		t.Fatalf("precompute 8 --wait: exit %d, %s", r.code, r.stderr)
	}
	f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 3}}, Empty: []solver.Square{{Row: 1, Col: 1}}}
	for _, c := range []struct {
		args   []string
		unique bool
		filter solver.Filter
		source string
	}{
		{[]string{"export", "8", "--where", "q0.3,e1.1"}, false, f, "store"},
		{[]string{"export", "9", "--unique"}, true, solver.Filter{}, "solver"},
	} {
		out := filepath.Join(dir, c.args[1]+".parquet")
		r := nqueensEnv(t, env, append(c.args, "--format", "parquet", "--output", out)...)
		fi, err := os.Stat(out)
		if r.code != 0 || err != nil || !strings.Contains(r.stderr, fmt.Sprintf("from the %s to %s: %d bytes", c.source, out, fi.Size())) {
			t.Fatalf("%v: exit %d (%v), stderr %q; want a summary with the source and the size", c.args, r.code, err, r.stderr)
		}
		file, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		n, rows, err := export.ReadParquet(file, fi.Size())
		if err != nil {
			t.Fatalf("%v: reading the file: %v", c.args, err)
		}
		listing := solver.All(n)
		if c.unique {
			listing = solver.AllUnique(n)
		}
		var want []export.ParquetRow
		rank := int64(0)
		for p := range listing {
			rank++
			if c.filter.Matches(p) {
				want = append(want, export.ParquetRow{Rank: rank, Placement: p.Clone()})
			}
		}
		if !slices.EqualFunc(rows, want, func(a, b export.ParquetRow) bool { return a.Rank == b.Rank && slices.Equal(a.Placement, b.Placement) }) {
			t.Errorf("%v wrote %d rows %v, want %d: %v", c.args, len(rows), rows, len(want), want)
		}
	}
}
