package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestPrecomputeWhere counts N=9 and N=10 under a filter into a SQLite
// file with --wait, then asks again without it: both print the counts of
// brute force (total) and the solver (unique), the second from the store.
// A bad filter is a usage error.
func TestPrecomputeWhere(t *testing.T) {
	t.Parallel()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}
	f := solver.Filter{Queens: []solver.Square{{Row: 1, Col: 2}}, Empty: []solver.Square{{Row: 0, Col: 0}, {Row: 4, Col: 4}}}
	var want strings.Builder
	for _, n := range []int{9, 10} {
		var total uint64
		for p := range solver.All(n) {
			if f.Matches(p) {
				total++
			}
		}
		c, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{})
		if err != nil || c.Total != total {
			t.Fatalf("CountFiltered(%d) = %+v, %v; brute force %d", n, c, err, total)
		}
		plan, err := solver.PlanFilteredCount(n, f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&want, "N=%d where %s: %d solutions, %d unique (%d chunks)\n", n, f.Key(), total, c.Unique, len(plan.Chunks))
	}
	// The squares out of order, one twice: the same count.
	where := "e4.4,q1.2,e0.0,e4.4"
	if r := nqueensEnv(t, env, "precompute", "9,10", "--where", where, "--wait"); r.code != 0 || r.stdout != want.String() {
		t.Fatalf("precompute 9,10 --where %s --wait: exit %d, stdout %q, stderr %q; want %q", where, r.code, r.stdout, r.stderr, want.String())
	}
	if r := nqueensEnv(t, env, "precompute", "9,10", "--where", f.Key()); r.code != 0 || r.stdout != want.String() {
		t.Errorf("precompute 9,10 --where %s again: exit %d, stdout %q, stderr %q; want %q", f.Key(), r.code, r.stdout, r.stderr, want.String())
	}
	for _, bad := range []string{"q9.0", "x1", ""} {
		if r := nqueensEnv(t, env, "precompute", "9", "--where", bad); r.code != 2 || !strings.Contains(r.stderr, "--where") {
			t.Errorf("precompute 9 --where %q: exit %d, stderr %q; want a usage error about --where", bad, r.code, r.stderr)
		}
	}
}
