package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/store/sqlite"
)

// The nouns the commands count, and a number before one of them that
// does not agree with it: "1 chunks", "0 chunk", "12 board".
var (
	countedNouns = `(solution|chunk|board|job|task)`
	oneMany      = regexp.MustCompile(`(^|[^\d.])1 ` + countedNouns + `s\b`)
	manyOne      = regexp.MustCompile(`(^|[^\d./])(0|[2-9]|\d\d+) ` + countedNouns + `\b`)
)

// disagreements returns the numbers and nouns of line that disagree.
func disagreements(line string) []string {
	return append(oneMany.FindAllString(line, -1), manyOne.FindAllString(line, -1)...)
}

// checkAgreement fails the test where a number and its noun disagree in
// the output of a command.
func checkAgreement(t *testing.T, what, out string) {
	t.Helper()
	for line := range strings.Lines(out) {
		if d := disagreements(line); len(d) > 0 {
			t.Errorf("%s: %q says %q", what, line, d)
		}
	}
}

func TestAgreementCheck(t *testing.T) {
	t.Parallel()
	for line, bad := range map[string]int{
		"N=1 done: 1 solutions, 1 unique, 1 chunks in 0.0 s": 2,
		"finished: 1/1 boards done, 0 chunk computed":        2,
		"N=12 done: 14200 solutions, 1787 unique, 12 chunk":  1,
		"N=1 done: 1 solution, 1 unique, 1 chunk in 0.1 s":   0,
		"finished: 11/11 boards done, 78 chunks computed":    0,
		"[###] counting: 670/3206 tasks, 1.5s, ETA 4s":       0,
	} {
		if d := disagreements(line); len(d) != bad {
			t.Errorf("%q: disagreements %q, want %d", line, d, bad)
		}
	}
}

// TestPrecomputeMessages: precompute says whether a board was done
// already, waits for a worker only when it does not work the jobs itself
// (--wait), and counts in words that agree with the numbers (N=1 has one
// solution in one chunk).
func TestPrecomputeMessages(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	env := []string{"NQUEENS_SQLITE_PATH=" + path}
	run := func(args ...string) string {
		t.Helper()
		r := nqueensEnv(t, env, append([]string{"precompute"}, args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("precompute %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		checkAgreement(t, "precompute "+strings.Join(args, " "), r.stdout)
		return r.stdout
	}
	wantLines := func(what, out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s printed no %q:\n%s", what, w, out)
			}
		}
	}

	asked := run("1", "2")
	wantLines("precompute 1 2", asked, "N=1 asked for: its job waits for a worker (nqueens worker, nqueens serve)\n", "N=2 asked for: its job waits")
	worked := run("1-2", "--wait")
	if strings.Contains(worked, "waits for a worker") {
		t.Errorf("precompute --wait says it waits for a worker, which it is:\n%s", worked)
	}
	cfg := sqlite.DefaultConfig()
	cfg.Path = path
	st, err := sqlite.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b1, err := st.Board(context.Background(), 1)
	st.Close()
	if err != nil || b1.ChunksTotal != 1 {
		t.Fatalf("N=1: %+v, %v; the messages below assume one chunk", b1, err)
	}
	wantLines("precompute 1-2 --wait", worked, "N=1 asked for: computing it\n", "N=1 done: 1 solution, 1 unique, 1 chunk in ",
		"N=2 done: 0 solutions, 0 unique, ", "finished: 2/2 boards done, ")
	again := run("1")
	wantLines("precompute 1, done", again, "N=1 already done: 1 solution, 1 unique (solutions stored)\n")
	again = run("1", "--wait")
	wantLines("precompute 1 --wait, done", again, "N=1 already done: 1 solution", "finished: 1/1 board done, 0 chunks computed in ")
}

// TestWorkerMessage: a worker of one job says so in the singular.
func TestWorkerMessage(t *testing.T) {
	t.Parallel()
	w := startWorker(t, []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}, "--workers", "1")
	const want = "nqueens: worker working 1 job at once on sqlite "
	eventually.True(t, time.Minute, func() string {
		if out := w.stdout.String(); !strings.HasPrefix(out, want) {
			return fmt.Sprintf("worker --workers 1: %q; want it to start %q", out, want)
		}
		return ""
	})
	w.stop(t)
}
