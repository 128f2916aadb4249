package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/solver"
)

// TestValidateReadsWhatSolvePrints runs solve in every format and feeds
// its output to validate, in process: every board solve prints is read
// back in its own form and found a solution.
func TestValidateReadsWhatSolvePrints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, n := range []int{1, 4, 8, 12, 37} {
		for _, format := range formats {
			var printed, out bytes.Buffer
			if err := runSolve(ctx, []string{strconv.Itoa(n), "--format", format}, console{lookupEnv: lookupIn(nil), stdout: &printed, stderr: io.Discard}); err != nil {
				t.Fatalf("solve %d --format %s: %v", n, format, err)
			}
			text := printed.String()
			if err := runValidate(ctx, []string{"--json"}, console{lookupEnv: lookupIn(nil), stdin: strings.NewReader(text), stdout: &out, stderr: io.Discard}); err != nil {
				t.Fatalf("solve %d --format %s | validate: %v\n%s", n, format, err, text)
			}
			var res validateResult
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("validate --json: %v\n%s", err, out.String())
			}
			wantForm := solver.Form(format)
			if n == 1 && format == "matrix" {
				wantForm = solver.FormRows // "1" is the one-row board in both
			}
			if n == 1 && format == "placement" {
				wantForm = solver.FormCompact // "0" is the one-row board in both
			}
			if !res.Valid || res.N != n || res.Form != wantForm || len(res.Conflicts) != 0 {
				t.Errorf("solve %d --format %s | validate --json = %+v, want valid, N=%d, form %s\n%s", n, format, res, n, wantForm, text)
			}
		}
	}
}

// TestValidateListsTheConflicts checks the text output for a board that
// is not a solution against the solver's conflicts, and the JSON output
// field by field.
func TestValidateListsTheConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	board := solver.Placement{0, 1, 4, 1, 3, 5}
	want, err := solver.Conflicts(board)
	if err != nil || len(want) < 2 {
		t.Fatalf("the board's conflicts: %v, %v", want, err)
	}
	// The board in chess notation, one square an argument as a shell
	// splits it.
	var out bytes.Buffer
	err = runValidate(ctx, strings.Fields(board.Chess()), console{lookupEnv: lookupIn(nil), stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !errors.Is(err, errNotASolution) || len(lines) != 1+len(want) {
		t.Fatalf("validate %s = %v:\n%s", board.Chess(), err, out.String())
	}
	if first := "not a solution: " + progress.Plural(len(want), "conflict") + " (N=6, read as chess)"; lines[0] != first {
		t.Errorf("first line %q, want %q", lines[0], first)
	}
	for i, c := range want {
		if lines[1+i] != c.Error() {
			t.Errorf("line %d: %q, want %q", 1+i, lines[1+i], c.Error())
		}
	}

	out.Reset()
	err = runValidate(ctx, []string{"--json", "--form", "placement", board.String()}, console{lookupEnv: lookupIn(nil), stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard})
	var res validateResult
	if jerr := json.Unmarshal(out.Bytes(), &res); !errors.Is(err, errNotASolution) || jerr != nil {
		t.Fatalf("validate --json %v: %v, %v\n%s", board, err, jerr, out.String())
	}
	if res.Valid || res.N != 6 || res.Form != solver.FormPlacement || len(res.Conflicts) != len(want) {
		t.Fatalf("validate --json %v = %+v", board, res)
	}
	for i, c := range want {
		if got := res.Conflicts[i]; got != (validateConflict{c.RowA, c.RowB, c.ColA, c.ColB, c.Kind, c.Error()}) {
			t.Errorf("conflict %d: %+v, want %+v", i, got, c)
		}
	}
}

// TestValidateRefusesTextThatIsNoBoard checks that bad input is a usage
// error (exit code 2) saying what is allowed.
func TestValidateRefusesTextThatIsNoBoard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args  []string
		stdin string
		says  string
	}{
		{[]string{"hello"}, "", "not a board in any of the forms placement, compact, rows, matrix or chess"},
		{nil, "   \n", "no board: write it in one of the forms"},
		{[]string{"--form", "rows", "a2", "b4", "c1", "d3"}, "", "as rows: row 0, square 0: 'a' is not allowed"},
		{[]string{"--form", "hex", "1302"}, "", `--form: unknown form "hex"; the forms are placement, compact, rows, matrix or chess`},
		{[]string{"--size", "4"}, "", "flags are --form, --json"},
	} {
		var out bytes.Buffer
		err := runValidate(context.Background(), c.args, console{lookupEnv: lookupIn(nil), stdin: strings.NewReader(c.stdin), stdout: &out, stderr: io.Discard})
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(ue.msg, c.says) || out.Len() != 0 {
			t.Errorf("validate %q (stdin %q) = %v, stdout %q; want a usage error with %q", c.args, c.stdin, err, out.String(), c.says)
		}
	}
}

// TestValidateExitCodes runs the command as main does: a solution exits
// 0, a board that is not one 1, text that is no board 2; the board comes
// from the arguments or, piped, from stdin.
func TestValidateExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args   []string
		stdin  string
		code   int
		stdout string // its first line
		stderr string // part of it
	}{
		{[]string{"validate", "1", "3", "0", "2"}, "", 0, "valid: no two of the 4 queens attack each other (N=4, read as placement)", ""},
		{[]string{"validate"}, ".Q..\n...Q\nQ...\n..Q.\n", 0, "valid: no two of the 4 queens attack each other (N=4, read as rows)", ""},
		{[]string{"validate", "-"}, "0 1\n1 0\n", 1, "not a solution: 1 conflict (N=2, read as matrix)", "nqueens validate: not a solution"},
		{[]string{"validate", "a1 b2 c3"}, "", 1, "not a solution: 2 conflicts (N=3, read as chess)", "nqueens validate: not a solution"},
		{[]string{"validate"}, "Q.\n.Q.\n", 2, "", "see 'nqueens validate --help'"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), c.args, console{lookupEnv: lookupIn(nil), stdin: strings.NewReader(c.stdin), stdout: &stdout, stderr: &stderr})
		first, _, _ := strings.Cut(stdout.String(), "\n")
		if code != c.code || first != c.stdout || !strings.Contains(stderr.String(), c.stderr) ||
			(c.stderr == "") != (stderr.Len() == 0) {
			t.Errorf("nqueens %q (stdin %q): exit %d, stdout %q, stderr %q; want exit %d, %q, stderr with %q",
				c.args, c.stdin, code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
		}
	}
}
