package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/solver"
)

const exportSynopsis = "N [--unique] [--where q0.3,e1.1] [--format csv|ndjson|placement|parquet] [--output FILE]"

// exportOptions are what export's settings set.
type exportOptions struct {
	unique                bool
	where, format, output string
	database              databaseOptions
}

func newExportOptions() *exportOptions {
	return &exportOptions{format: "csv", database: newDatabaseOptions()}
}

// settings is export's settings table.
func (o *exportOptions) settings() []setting {
	return append([]setting{
		{flag: "unique", env: flagOnly, into: &o.unique, help: "only canonical solutions, one per symmetry class (under --where: the classes with a member that matches)"},
		{flag: "where", env: flagOnly, into: &o.where, help: "keep the solutions with a queen on each q<row>.<col> square and none on each e<row>.<col> square (0-based, row 0 on top), e.g. `q0.3,e1.1`"},
		{flag: "format", env: flagOnly, into: &o.format, help: "`FORMAT` of the output: " + strings.Join(export.FormatNames(), ", ") +
			"\n        (csv: a header row0,…,row{N-1}, then the column of each row's queen; ndjson: {\"n\":N,\"placement\":[…]}; placement: columns separated by spaces;" +
			"\n        parquet: a Parquet file, columns rank and row0,…,row{N-1}, for DuckDB, pandas, polars; to a file or a pipe, not a terminal)"},
		{flag: "output", env: flagOnly, into: &o.output, help: "write to `FILE` instead of standard output"},
	}, o.database.settings()...)
}

// runExport writes every solution of N (or those --where keeps) in
// lexicographic order: from the database when it holds the board done
// with its solutions, else from the solver. The formats are package
// export's; Parquet is binary, so it is not written to a terminal. With --output the file is removed again when the export
// fails, and a summary goes to stderr.
func runExport(ctx context.Context, args []string, c console) error {
	o := newExportOptions()
	t := newSettings("export", o.settings())
	pos, err := t.parse(args, c, exportSynopsis+"\n\nThe database: "+databaseEnvUsage+"; a board it does not hold done comes from the solver.")
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	n, err := parseN(pos, maxSearchN, "(the largest board the search handles)")
	if err != nil {
		return err
	}
	f, err := solver.ParseFilter(o.where)
	if err != nil {
		return usagef("--where: %v", err)
	}
	form, err := export.ParseFormat(o.format)
	if err != nil {
		return usagef("--format: %s", nqueens.ErrorMessage(err))
	}
	if f, ok := c.stdout.(*os.File); ok && form == export.Parquet && o.output == "" && term.IsTerminal(int(f.Fd())) {
		return usagef("--format parquet writes a binary file: give --output FILE, or redirect standard output to a file or a pipe")
	}
	req := export.Request{N: n, Unique: o.unique, Filter: f, Format: form}
	if err := req.Check(); err != nil {
		return usagef("%s", nqueens.ErrorMessage(err))
	}
	db, err := o.database.database(t)
	if err != nil {
		return err
	}

	var st export.Store
	// A SQLite file that is not there holds nothing: opening it would
	// create it.
	if _, statErr := os.Stat(db.Path); db.URL != "" || statErr == nil {
		s, err := service.OpenStore(ctx, db)
		if err != nil {
			return err
		}
		defer s.Close()
		st = s
	}
	e, err := export.Plan(ctx, st, req, maxSearchN)
	if err != nil {
		return err
	}

	// What it will write, said first where someone reads it (a terminal,
	// or beside --output's summary), and its progress on a terminal.
	start := time.Now()
	bar := progress.NewCountOf(c.stderr, start, "exporting", "solution")
	total, counted, err := exportCount(ctx, st, e)
	if err != nil {
		return err
	}
	if counted && (bar != nil || o.output != "") {
		if form == export.Parquet {
			// Compressed: its size is known once written.
			fmt.Fprintf(c.stderr, "nqueens export: N=%d, %s from the %s, as parquet\n", n, progress.Plural(total, "solution"), e.Source)
		} else {
			lines, size := export.Size(form, n, total)
			fmt.Fprintf(c.stderr, "nqueens export: N=%d, %s from the %s: %s, %s of %s\n", n,
				progress.Plural(total, "solution"), e.Source, progress.Plural(lines, "line"), byteSize(size), form)
		}
	}
	out := c.stdout
	if o.output != "" {
		file, err := os.Create(o.output)
		if err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	written, err := writeExport(ctx, e, out, bar, total)
	if o.output != "" {
		err = errors.Join(err, out.(*os.File).Close())
		if err != nil {
			os.Remove(o.output)
		}
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(c.stderr, "nqueens export: stopped after %s\n", progress.Plural(written, "solution"))
	}
	if err != nil || o.output == "" {
		return err
	}
	if form == export.Parquet {
		if fi, err := os.Stat(o.output); err == nil {
			fmt.Fprintf(c.stderr, "nqueens export: wrote %d solutions of N=%d from the %s to %s: %s\n", written, n, e.Source, o.output, byteSize(uint64(fi.Size())))
			return nil
		}
	}
	fmt.Fprintf(c.stderr, "nqueens export: wrote %d solutions of N=%d from the %s to %s\n", written, n, e.Source, o.output)
	return nil
}

// writeExport writes e to w, drawing bar (nil: none) as it goes.
func writeExport(ctx context.Context, e *export.Export, w io.Writer, bar *progress.Count, total uint64) (uint64, error) {
	if bar == nil {
		return e.WriteTo(ctx, w)
	}
	stop := bar.Run()
	defer stop() // erased before the summary or the interrupt's message
	if e.Format == export.Parquet {
		e.Progress = func(solutions uint64) { bar.Update(int(solutions), int(total)) }
		return e.WriteTo(ctx, w)
	}
	header := uint64(0)
	if e.Format == export.CSV {
		header = 1
	}
	return e.WriteTo(ctx, &lineCounter{w: w, bar: bar, total: total, header: header})
}
