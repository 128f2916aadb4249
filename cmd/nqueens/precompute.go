package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

const precomputeSynopsis = "RANGE [--where q0.3,e1.1] [--wait] [--requested-by NAME] [--workers K] [--store-max-n N] [--job-timeout D] [--rescue-after D] [--shutdown-timeout D] …"

// precomputeOptions are what precompute's settings set.
type precomputeOptions struct {
	wait        bool
	where       string
	requestedBy string
	workers     precompute.Config
	database    databaseOptions
	log         logOptions
}

func newPrecomputeOptions() *precomputeOptions {
	// Warnings and errors only by default: the progress is on stdout.
	return &precomputeOptions{workers: precompute.DefaultConfig(), database: newDatabaseOptions(), log: newLogOptions(slog.LevelWarn)}
}

// settings is precompute's settings table.
func (o *precomputeOptions) settings() []setting {
	return slices.Concat([]setting{
		{flag: "wait", env: "NQUEENS_PRECOMPUTE_WAIT", into: &o.wait, help: "work the jobs here too and show the progress until the boards are done"},
		{flag: "where", env: flagOnly, into: &o.where, help: "count, for each board of RANGE, the solutions with a queen on each q<row>.<col> square and none on each e<row>.<col> square (0-based, row 0 on top), e.g. `q0.3,e1.1`, and store the count instead of the board"},
		{flag: "requested-by", into: &o.requestedBy, dflt: "$USER",
			help: "`NAME` recorded as who asked for the boards this call asks for first (the board's requestedBy, the column requested_by), up to 100 printable characters; \"\": not known"},
	}, workerSettings(&o.workers, true), o.database.settings(), o.log.settings())
}

// runPrecompute asks for the boards of RANGE (e.g. 1-16, or 8,10,12-14):
// each gets a board job, unless it is running or done already. Without
// --wait it prints each board's state and exits, leaving the work to the
// workers (nqueens worker, nqueens serve). With --wait it works the jobs
// itself as well, so that it finishes with no other worker running (on
// the embedded SQLite file, say), shows the progress until every board is
// done (a bar on a terminal, a line every few seconds otherwise), and
// exits 1 if a board failed.
func runPrecompute(ctx context.Context, args []string, c console) error {
	o := newPrecomputeOptions()
	t := newSettings("precompute", o.settings())
	pos, err := t.parse(args, c, precomputeSynopsis+"\n\nRANGE lists board sizes from 1 to "+strconv.Itoa(precompute.MaxN)+
		": 1-16, 8,10,12-14. Boards up to the storage limit keep every solution,\nthose above it their counts only.\nThe database: "+databaseEnvUsage+".")
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing RANGE, the boards to compute (e.g. 1-16 or 8,10,12-14)")
	}
	ns, err := service.ParseBoards(strings.Join(pos, ","))
	if err != nil {
		return usagef("%v", err)
	}
	filter, err := solver.ParseFilter(o.where)
	if err != nil {
		return usagef("--where: %v", err)
	}
	if t.isSet("where") && filter.IsZero() {
		return usagef("--where names no square: leave it out to compute the boards themselves")
	}
	for _, n := range ns {
		if err := filter.Validate(n); err != nil {
			return usagef("--where: %v", err)
		}
	}
	if len(ns) == 0 {
		return usagef("RANGE names no board")
	}
	if err := t.refusal(&o.workers, o.workers.Check()); err != nil {
		return err
	}
	if !t.isSet("requested-by") {
		o.requestedBy, _ = c.lookupEnv("USER")
	}
	db, err := o.database.database(t)
	if err != nil {
		return err
	}

	logger := o.log.logger(c.stderr)
	st, j, err := service.Open(ctx, db, true, engineConfig(o.workers, logger))
	if err != nil {
		return err
	}
	defer st.Close()
	if o.wait {
		if err := j.Start(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		defer func() {
			if err := j.Shutdown(); err != nil {
				logger.Error(err.Error())
			}
		}()
	}
	if !filter.IsZero() {
		return precomputeCounts(ctx, j, st, ns, filter, o.wait, c)
	}
	boards := make([]store.Board, len(ns))
	for i, n := range ns {
		if boards[i], err = j.Precompute(ctx, store.BoardRequest{N: n, RequestedBy: o.requestedBy}, nil); err != nil {
			return fmt.Errorf("asking for board %d: %w", n, err)
		}
	}
	if !o.wait {
		for _, b := range boards {
			fmt.Fprintln(c.stdout, progress.AskedFor(b, false))
		}
		return nil
	}
	return progress.Watch(ctx, st, ns, boards, c.stdout)
}
