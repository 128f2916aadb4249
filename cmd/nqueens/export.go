package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

const exportSynopsis = "N [--unique] [--where q0.3,e1.1] [--format csv|ndjson|placement] [--output FILE]"

// runExport writes every solution of N (or those --where keeps) in
// lexicographic order: from the database when it holds the board done
// with its solutions, else from the solver. The formats are package
// export's. With --output the file is removed again when the export
// fails, and a summary goes to stderr.
func runExport(ctx context.Context, args []string, c console) error {
	fs := newFlagSet("export")
	unique := fs.Bool("unique", false, "only canonical solutions, one per symmetry class (under --where: the classes with a member that matches)")
	where := fs.String("where", "", "keep the solutions with a queen on each q<row>.<col> square and none on each e<row>.<col> square (0-based, row 0 on top), e.g. `q0.3,e1.1`")
	format := fs.String("format", "csv", "`FORMAT` of the output: "+strings.Join(export.FormatNames(), ", ")+
		"\n        (csv: a header row0,…,row{N-1}, then the column of each row's queen; ndjson: {\"n\":N,\"placement\":[…]}; placement: columns separated by spaces)")
	output := fs.String("output", "", "write to `FILE` instead of standard output")
	dbFlags := addDatabaseFlags(fs)
	if err := setFromEnv(fs, c.lookupEnv); err != nil {
		return err
	}
	pos, err := parseArgs(fs, exportSynopsis+"\n\nThe database: "+databaseEnvUsage+"; a board it does not hold done comes from the solver.", args, c.stdout)
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
	f, err := solver.ParseFilter(*where)
	if err != nil {
		return usagef("--where: %v", err)
	}
	form, err := export.ParseFormat(*format)
	if err != nil {
		return usagef("--format: %s", store.ErrorMessage(err))
	}
	req := export.Request{N: n, Unique: *unique, Filter: f, Format: form}
	if err := req.Check(); err != nil {
		return usagef("%s", store.ErrorMessage(err))
	}
	db, err := dbFlags.database()
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
	if *output == "" {
		_, err = e.WriteTo(ctx, c.stdout)
		return err
	}
	file, err := os.Create(*output)
	if err != nil {
		return err
	}
	k, err := e.WriteTo(ctx, file)
	if err = errors.Join(err, file.Close()); err != nil {
		os.Remove(*output)
		return err
	}
	fmt.Fprintf(c.stderr, "nqueens export: wrote %d solutions of N=%d from the %s to %s\n", k, n, e.Source, *output)
	return nil
}
