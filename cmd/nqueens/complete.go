package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens/solver"
)

const completeSynopsis = "N [--where q0.3,e1.1] [--queens 0.3,2.5] [--empty 1.1] [--timeout 10s] [--format placement|rows|matrix|chess]"

// errImpossible is complete's verdict on a board proved impossible: exit
// code 1, after the reason is printed.
var errImpossible = errors.New("impossible")

// completeOptions are what complete's settings set.
type completeOptions struct {
	where, queens, empty, format string
	timeout                      time.Duration
}

func newCompleteOptions() *completeOptions {
	return &completeOptions{format: "placement", timeout: 10 * time.Second}
}

// settings is complete's settings table.
func (o *completeOptions) settings() []setting {
	return []setting{
		{flag: "where", env: flagOnly, into: &o.where, help: "pinned queens and empty squares, `FILTER` as q<row>.<col> and e<row>.<col> separated by commas (0-based, row 0 on top), e.g. q0.3,e1.1"},
		{flag: "queens", env: flagOnly, into: &o.queens, help: "`SQUARES` that must hold a queen, <row>.<col> separated by commas, e.g. 0.3,2.5"},
		{flag: "empty", env: flagOnly, into: &o.empty, help: "`SQUARES` that must stay empty, <row>.<col> separated by commas, e.g. 1.1"},
		{flag: "timeout", env: flagOnly, into: &o.timeout, help: "how long to search before answering UNKNOWN"},
		{flag: "format", env: flagOnly, into: &o.format, help: "`FORMAT` of the solution: " + strings.Join(formats, ", ")},
	}
}

// runComplete completes a board with pinned and blocked squares
// (solver.Complete) and prints the solution in solve's formats, so that
// it pipes into validate; a board proved impossible prints
// "IMPOSSIBLE: reason" and exits 1, one left undecided when --timeout ran
// out prints "UNKNOWN: reason" and exits 3 (errUndecided).
func runComplete(ctx context.Context, args []string, c console) error {
	o := newCompleteOptions()
	pos, err := newSettings("complete", o.settings()).parse(args, c, completeSynopsis)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(formats, o.format) {
		return usagef("unknown format %q; formats are %s", o.format, strings.Join(formats, ", "))
	}
	if o.timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.timeout)
	}
	maxN, why := solver.MaxCompleteN, "to complete"
	if o.format == "rows" || o.format == "matrix" {
		maxN, why = min(maxN, maxDrawN), "for --format "+o.format+" (its output is N² characters)"
	}
	n, err := parseN(pos, maxN, why)
	if err != nil {
		return err
	}
	f, err := completeFilter(o.where, o.queens, o.empty)
	if err != nil {
		return err
	}
	if err := f.Check(n); err != nil {
		return usagef("%v", err)
	}

	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	res, err := solver.Complete(ctx, n, f, solver.Budget{})
	if err != nil {
		return usagef("%v", err) // checked above
	}
	w := bufio.NewWriterSize(c.stdout, 64<<10)
	switch res.State {
	case solver.Completed:
		write(w, res.Placement, o.format)
	case solver.Impossible:
		fmt.Fprintf(w, "IMPOSSIBLE: %s\n", res.Reason)
		err = errImpossible
	default:
		if errors.Is(res.Stopped, context.Canceled) {
			return res.Stopped // interrupted
		}
		reason := res.Reason
		if errors.Is(res.Stopped, context.DeadlineExceeded) {
			reason = fmt.Sprintf("the search stopped undecided after %d nodes when --timeout (%s) ran out", res.Nodes, o.timeout)
		}
		fmt.Fprintf(w, "UNKNOWN: %s\n", reason)
		err = errUndecided
	}
	if ferr := w.Flush(); ferr != nil {
		return ferr
	}
	return err
}

// completeFilter joins --where, --queens and --empty into one filter.
func completeFilter(where, queens, empty string) (solver.Filter, error) {
	f, err := solver.ParseFilter(where)
	if err != nil {
		return f, usagef("--where: %v", err)
	}
	for _, list := range []struct {
		flag, text string
		into       *[]solver.Square
	}{{"--queens", queens, &f.Queens}, {"--empty", empty, &f.Empty}} {
		if strings.TrimSpace(list.text) == "" {
			continue
		}
		for i, part := range strings.Split(list.text, ",") {
			row, col, ok := strings.Cut(strings.TrimSpace(part), ".")
			r, errR := strconv.Atoi(row)
			c, errC := strconv.Atoi(col)
			if !ok || errR != nil || errC != nil {
				return f, usagef("%s: square %d is %q: write <row>.<col> for each square, separated by commas, e.g. 0.3,2.5", list.flag, i+1, part)
			}
			*list.into = append(*list.into, solver.Square{Row: r, Col: c})
		}
	}
	return f, nil
}
