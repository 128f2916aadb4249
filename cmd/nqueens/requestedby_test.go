package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/store/sqlite"
)

// TestPrecomputeRequestedBy: precompute records who asks for a board:
// --requested-by, else its twin NQUEENS_REQUESTED_BY, else $USER;
// --requested-by "" records nobody. The first requester of a board is
// kept; a bad name fails the command, saying what is allowed, and asks
// for nothing.
func TestPrecomputeRequestedBy(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	run := func(env []string, args ...string) result {
		t.Helper()
		return nqueensEnv(t, append([]string{"NQUEENS_SQLITE_PATH=" + path}, env...), append([]string{"precompute"}, args...)...)
	}
	for _, tt := range []struct {
		env  []string
		args []string
	}{
		{[]string{"USER=alice"}, []string{"3"}},
		{[]string{"USER=alice"}, []string{"4", "--requested-by", "Bob B."}},
		{[]string{"USER=alice", "NQUEENS_REQUESTED_BY=carol"}, []string{"5"}},
		{[]string{"USER=alice", "NQUEENS_REQUESTED_BY=carol"}, []string{"6", "--requested-by", ""}},
		{nil, []string{"7"}},
		{[]string{"USER=alice"}, []string{"3", "--requested-by", "dave"}}, // asked again: alice stays
	} {
		if r := run(tt.env, tt.args...); r.code != 0 || r.stderr != "" {
			t.Fatalf("%v precompute %v: exit %d, stderr %q", tt.env, tt.args, r.code, r.stderr)
		}
	}
	r := run([]string{"USER=alice"}, "8", "--requested-by", "two\nlines")
	if r.code == 0 || !strings.Contains(r.stderr, "requested by must be printable text") {
		t.Errorf("precompute 8 --requested-by with a line break: exit %d, stderr %q; want a failure saying what is allowed", r.code, r.stderr)
	}

	cfg := sqlite.DefaultConfig()
	cfg.Path = path
	st, err := sqlite.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for n, want := range map[int]string{3: "alice", 4: "Bob B.", 5: "carol", 6: "", 7: ""} {
		if b, err := st.Board(t.Context(), n); err != nil || b.RequestedBy != want {
			t.Errorf("N=%d: requested by %q, %v; want %q", n, b.RequestedBy, err, want)
		}
	}
	if _, err := st.Board(t.Context(), 8); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
		t.Errorf("N=8, asked for by a bad name: %v; want ENOTFOUND (not asked for)", err)
	}
}
