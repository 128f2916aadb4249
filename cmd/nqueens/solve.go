package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/nqueens/solver"
)

const (
	solveSynopsis = "N [--all | --limit K] [--unique] [--format placement|rows|matrix|chess]"

	// maxDrawN is the largest N printed as rows or a matrix: the output is
	// N² characters.
	maxDrawN = 1000
	// maxSolveN is the largest N for one constructed solution: it keeps the
	// placement (8 bytes a row) and the output (up to 9 bytes a row) to
	// about 100 MB each.
	maxSolveN = 10_000_000
)

// The output formats. placement: one solution per line, 0-based columns
// separated by spaces. rows: one line per row, '.' and 'Q'. matrix: one
// line per row, 0 and 1 separated by spaces. chess: one line per solution,
// squares by file (a.. = columns left to right, ranks 1.. from the bottom
// row; row 0 of a placement is the top row). rows and matrix put a blank
// line between solutions.
var formats = []string{"placement", "rows", "matrix", "chess"}

// solveOptions are what solve's settings set.
type solveOptions struct {
	all, unique bool
	limit       int
	format      string
}

func newSolveOptions() *solveOptions { return &solveOptions{format: "placement"} }

// settings is solve's settings table.
func (o *solveOptions) settings() []setting {
	return []setting{
		{flag: "all", env: flagOnly, into: &o.all, help: "list every solution in lexicographic order (N up to " + strconv.Itoa(maxSearchN) + ")"},
		{flag: "limit", env: flagOnly, into: &o.limit, dflt: "none", help: "list the first `K` solutions in lexicographic order (N up to " + strconv.Itoa(maxSearchN) + ")"},
		{flag: "unique", env: flagOnly, into: &o.unique, help: "list only canonical solutions, one per symmetry class; alone it means --limit 1"},
		{flag: "format", env: flagOnly, into: &o.format, help: "`FORMAT` of the output: " + strings.Join(formats, ", ")},
	}
}

func runSolve(ctx context.Context, args []string, c console) error {
	o := newSolveOptions()
	t := newSettings("solve", o.settings())
	pos, err := t.parse(args, c, solveSynopsis)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}

	limitSet := t.isSet("limit")
	switch {
	case o.all && limitSet:
		return usagef("--all and --limit exclude each other: give one")
	case limitSet && o.limit < 1:
		return usagef("--limit must be a whole number of solutions, at least 1, got %d", o.limit)
	}
	if !slices.Contains(formats, o.format) {
		return usagef("unknown format %q; formats are %s", o.format, strings.Join(formats, ", "))
	}
	drawn := o.format == "rows" || o.format == "matrix"
	enumerate := o.all || limitSet || o.unique

	var n int
	switch {
	case enumerate:
		n, err = parseN(pos, maxSearchN, "when listing solutions (--all, --limit, --unique)")
	case drawn:
		n, err = parseN(pos, maxDrawN, "for --format "+o.format+" (its output is N² characters)")
	default:
		n, err = parseN(pos, maxSolveN, "for one solution")
	}
	if err != nil {
		return err
	}

	w := bufio.NewWriterSize(c.stdout, 64<<10)
	if enumerate {
		seq := solver.All(n)
		if o.unique {
			seq = solver.AllUnique(n)
		}
		k := 0 // no limit
		if limitSet {
			k = o.limit
		} else if !o.all {
			k = 1 // --unique alone
		}
		err = list(ctx, w, n, seq, k, o.format)
	} else {
		err = one(w, n, o.format)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// list writes the solutions of seq, at most k of them when k > 0.
func list(ctx context.Context, w *bufio.Writer, n int, seq iter.Seq[solver.Placement], k int, format string) error {
	count := 0
	for p := range seq {
		if count > 0 && (format == "rows" || format == "matrix") {
			w.WriteByte('\n')
		}
		write(w, p, format)
		count++
		if count == k {
			break
		}
		if count%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if count == 0 {
		fmt.Fprintf(w, "N=%d has no solutions\n", n)
	}
	return nil
}

// one writes the constructed solution of N, checked before it is printed.
func one(w *bufio.Writer, n int, format string) error {
	p, err := solver.Solve(n)
	if err != nil {
		// Small boards can be searched to tell "none" from a failure.
		if n <= maxSearchN && !hasSolution(n) {
			fmt.Fprintf(w, "N=%d has no solutions\n", n)
			return nil
		}
		return err
	}
	if err := solver.ValidateN(n, p); err != nil {
		return fmt.Errorf("constructed solution for N=%d is wrong: %w", n, err)
	}
	write(w, p, format)
	return nil
}

func hasSolution(n int) bool {
	for range solver.All(n) {
		return true
	}
	return false
}

// write writes one solution in the given format. Write errors are kept by
// the bufio.Writer and reported by its Flush.
func write(w *bufio.Writer, p solver.Placement, format string) {
	switch format {
	case "rows":
		for _, row := range p.Rows() {
			w.WriteString(row)
			w.WriteByte('\n')
		}
	case "matrix":
		for _, row := range p.Matrix() {
			for i, v := range row {
				if i > 0 {
					w.WriteByte(' ')
				}
				w.WriteString(strconv.Itoa(v))
			}
			w.WriteByte('\n')
		}
	case "chess":
		w.WriteString(p.Chess())
		w.WriteByte('\n')
	default:
		var buf [20]byte
		for i, c := range p {
			if i > 0 {
				w.WriteByte(' ')
			}
			w.Write(strconv.AppendInt(buf[:0], int64(c), 10))
		}
		w.WriteByte('\n')
	}
}
