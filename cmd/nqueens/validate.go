package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/solver"
)

const validateSynopsis = "[BOARD... | -] [--form placement|compact|rows|matrix|chess] [--json]"

// errNotASolution is validate's verdict on a board whose queens attack each
// other: exit code 1, after the conflicts are printed.
var errNotASolution = errors.New("not a solution")

// validateResult is what validate prints with --json: the board's size,
// the form it was read in, the verdict and every conflict (solver's
// Conflicts: each pair of queens that share a line with none between).
type validateResult struct {
	N         int                `json:"n"`
	Form      solver.Form        `json:"form"`
	Valid     bool               `json:"valid"`
	Conflicts []validateConflict `json:"conflicts"`
}

type validateConflict struct {
	RowA    int                 `json:"rowA"`
	RowB    int                 `json:"rowB"`
	ColA    int                 `json:"colA"`
	ColB    int                 `json:"colB"`
	Kind    solver.ConflictKind `json:"kind"`
	Message string              `json:"message"`
}

// validateOptions are what validate's settings set.
type validateOptions struct {
	form string
	json bool
}

func newValidateOptions() *validateOptions { return &validateOptions{} }

// settings is validate's settings table.
func (o *validateOptions) settings() []setting {
	return []setting{
		{flag: "form", env: flagOnly, into: &o.form, dflt: "detected", help: "the `FORM` the board is written in: " + formNames()},
		{flag: "json", env: flagOnly, into: &o.json, help: "print one JSON object instead of the verdict and conflicts in words"},
	}
}

// runValidate reads a board in any form solve prints (or the API
// returns) and says whether it is a solution. The text output is a
// verdict line, then one line per conflict:
//
//	not a solution: 2 conflicts (N=4, read as placement)
//	rows 0 and 1 share a diagonal (columns 0 and 1)
//	rows 2 and 3 share a diagonal (columns 2 and 3)
//
// Exit code 0 for a solution, 1 for a board that is not one, 2 for text
// that is no board.
func runValidate(ctx context.Context, args []string, c console) error {
	stdout := c.stdout
	o := newValidateOptions()
	pos, err := newSettings("validate", o.settings()).parse(args, c, validateSynopsis)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	var form solver.Form
	if o.form != "" {
		if form, err = solver.ParseForm(o.form); err != nil {
			return usagef("--form: %v", err)
		}
	}

	// The board is the arguments, joined by spaces (a shell splits
	// "a2 b4 c1 d3" into four), or stdin without them.
	text := strings.Join(pos, " ")
	if len(pos) == 0 || len(pos) == 1 && pos[0] == "-" {
		if text, err = readBoard(ctx, c.stdin, c.stderr); err != nil {
			return err
		}
	}
	p, read, err := solver.ParseBoard(text, form)
	if err != nil {
		return usagef("%v", err)
	}
	conflicts, err := solver.Conflicts(p)
	if err != nil {
		return fmt.Errorf("the board read is not well formed: %w", err) // ParseBoard checks the shape
	}

	w := bufio.NewWriter(stdout)
	if o.json {
		res := validateResult{N: len(p), Form: read, Valid: len(conflicts) == 0, Conflicts: []validateConflict{}}
		for _, c := range conflicts {
			res.Conflicts = append(res.Conflicts, validateConflict{c.RowA, c.RowB, c.ColA, c.ColB, c.Kind, c.Error()})
		}
		if err := json.NewEncoder(w).Encode(res); err != nil {
			return err
		}
	} else {
		switch {
		case len(conflicts) > 0:
			fmt.Fprintf(w, "not a solution: %s", progress.Plural(len(conflicts), "conflict"))
		case len(p) == 1:
			fmt.Fprint(w, "valid: a single queen has no other to attack")
		default:
			fmt.Fprintf(w, "valid: no two of the %d queens attack each other", len(p))
		}
		fmt.Fprintf(w, " (N=%d, read as %s)\n", len(p), read)
		for _, c := range conflicts {
			fmt.Fprintln(w, c.Error())
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(conflicts) > 0 {
		return errNotASolution
	}
	return nil
}

// readBoard reads the board from stdin to its end. On a terminal it says
// so first, and an interrupt stops the wait.
func readBoard(ctx context.Context, stdin io.Reader, stderr io.Writer) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintln(stderr, "nqueens validate: reading the board from stdin; end it with Ctrl-D")
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(stdin)
		done <- read{data, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return "", fmt.Errorf("reading the board from stdin: %w", r.err)
		}
		return string(r.data), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// formNames lists the forms for the help text.
func formNames() string {
	names := make([]string, len(solver.Forms))
	for i, f := range solver.Forms {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
