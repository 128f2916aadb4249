package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
		{[]string{"export", "8", "--format", "xml"}, "formats are csv, ndjson, placement"},
		{[]string{"export", "8", "--where", "z1.1"}, "write q<row>.<col>"},
		{[]string{"export", "8", "--where", "q8.0"}, "rows and columns of N=8 go from 0 to 7"},
	} {
		r := runCLI(t, c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("nqueens %s: exit %d, stderr %q; want exit %d saying %q", strings.Join(c.args, " "), r.code, r.stderr, exitUsage, c.want)
		}
	}
}
