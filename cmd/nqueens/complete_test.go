package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestCompletePrintsWhatValidateReads completes boards in process, in
// every format, and reads each answer back as validate does: a solution
// that meets the filter, the same in every form.
func TestCompletePrintsWhatValidateReads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		n    int
		f    solver.Filter
	}{
		{[]string{"8", "--where", "q0.0,e1.4"}, 8, solver.Filter{Queens: []solver.Square{{Row: 0, Col: 0}}, Empty: []solver.Square{{Row: 1, Col: 4}}}},
		{[]string{"12", "--queens", "0.5, 3.3", "--empty", "1.1"}, 12, solver.Filter{Queens: []solver.Square{{Row: 0, Col: 5}, {Row: 3, Col: 3}}, Empty: []solver.Square{{Row: 1, Col: 1}}}},
		{[]string{"--where", "q7.1", "--queens", "500.2", "1000"}, 1000, solver.Filter{Queens: []solver.Square{{Row: 7, Col: 1}, {Row: 500, Col: 2}}}},
	} {
		var first solver.Placement
		for _, format := range formats {
			var out bytes.Buffer
			if err := runComplete(context.Background(), append(slices.Clone(c.args), "--format", format), console{lookupEnv: lookupIn(nil), stdout: &out, stderr: io.Discard}); err != nil {
				t.Fatalf("complete %q --format %s: %v", c.args, format, err)
			}
			p, _, err := solver.ParseBoard(out.String(), solver.Form(format))
			if err != nil || solver.ValidateN(c.n, p) != nil || !c.f.Matches(p) {
				t.Fatalf("complete %q --format %s printed %.200q: not a solution of N=%d meeting %q (%v)", c.args, format, out.String(), c.n, c.f, err)
			}
			if first == nil {
				first = p
			} else if !slices.Equal(first, p) {
				t.Errorf("complete %q: --format %s printed %v, placement %v", c.args, format, p, first)
			}
		}
	}
}

// TestCompleteExitCodes runs the command as main does: completed exits 0,
// impossible 1 with the reason, bad input 2, undecided 3.
func TestCompleteExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // its first line, or a part of it
		stderr string // part of it
	}{
		{[]string{"complete", "4", "--queens", "0.1"}, 0, "1 3 0 2", ""},
		{[]string{"complete", "8", "--queens", "0.0,1.1"}, 1, "IMPOSSIBLE: the pinned queens at (row 0, col 0) and (row 1, col 1) attack each other", "nqueens complete: impossible"},
		{[]string{"complete", "6", "--where", "q0.0"}, 1, "IMPOSSIBLE: the exact search tried every placement", "nqueens complete: impossible"},
		{[]string{"complete", "1000", "--timeout", "1ns"}, 3, "UNKNOWN: the search stopped undecided after 0 nodes when --timeout (1ns) ran out", "nqueens complete: undecided"},
		{[]string{"complete", "10001"}, 2, "", "N must be a whole number from 1 to 10000 to complete"},
		{[]string{"complete", "2000", "--format", "rows"}, 2, "", "from 1 to 1000 for --format rows"},
		{[]string{"complete", "8", "--empty", "8.1"}, 2, "", "empty[0] is (row 8, col 1), off the board: rows and columns of N=8 go from 0 to 7"},
		{[]string{"complete", "8", "--queens", "1-2"}, 2, "", `--queens: square 1 is "1-2": write <row>.<col>`},
		{[]string{"complete", "8", "--where", "x1.2"}, 2, "", "--where: filter item 1"},
		{[]string{"complete", "8", "--timeout", "0s"}, 2, "", "--timeout must be positive"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), c.args, console{lookupEnv: lookupIn(nil), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
		first, _, _ := strings.Cut(stdout.String(), "\n")
		if code != c.code || !strings.HasPrefix(first, c.stdout) || !strings.Contains(stderr.String(), c.stderr) ||
			(c.stderr == "") != (stderr.Len() == 0) || (c.stdout == "") != (stdout.Len() == 0) {
			t.Errorf("nqueens %q: exit %d, stdout %q, stderr %q; want exit %d, %q, stderr with %q",
				c.args, code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
		}
	}
}
