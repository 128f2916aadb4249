package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

const (
	precomputeSynopsis = "RANGE [--where q0.3,e1.1] [--wait] [--requested-by NAME] [--workers K] [--store-max-n N] [--job-timeout D] [--rescue-after D] [--shutdown-timeout D] …"
	envWait            = "NQUEENS_PRECOMPUTE_WAIT"
	envRequestedBy     = "NQUEENS_REQUESTED_BY"
)

// precomputeEnv are the environment twins of precompute's own flags.
var precomputeEnv = []envFlag{
	{"wait", envWait, ""},
	{"requested-by", envRequestedBy, ""},
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
	fs := newFlagSet("precompute")
	s := addWorkerFlags(fs, false)
	dbFlags := addDatabaseFlags(fs)
	// Warnings and errors only by default: the progress is on stdout.
	logFlags := addLogFlags(fs, slog.LevelWarn)
	wait := fs.Bool("wait", false, "work the jobs here too and show the progress until the boards are done ($"+envWait+")")
	where := fs.String("where", "", "count, for each board of RANGE, the solutions with a queen on each q<row>.<col> square and none on each e<row>.<col> square (0-based, row 0 on top), e.g. `q0.3,e1.1`, and store the count instead of the board")
	requestedBy := fs.String("requested-by", "", "`NAME` recorded as who asked for the boards this call asks for first; default: $USER; \"\": not known ($"+envRequestedBy+")")
	if err := setFromEnv(fs, c.lookupEnv); err != nil {
		return err
	}
	pos, err := parseArgs(fs, precomputeSynopsis+"\n\nRANGE lists board sizes from 1 to "+strconv.Itoa(precompute.MaxN)+
		": 1-16, 8,10,12-14. Boards up to the storage limit keep every solution,\nthose above it their counts only.\nThe database: "+databaseEnvUsage+".", args, c.stdout)
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
	filter, err := solver.ParseFilter(*where)
	if err != nil {
		return usagef("--where: %v", err)
	}
	if isSet(fs, "where") && filter.IsZero() {
		return usagef("--where names no square: leave it out to compute the boards themselves")
	}
	for _, n := range ns {
		if err := filter.Check(n); err != nil {
			return usagef("--where: %v", err)
		}
	}
	if len(ns) == 0 {
		return usagef("RANGE names no board")
	}
	if err := s.check(); err != nil {
		return err
	}
	if !isSet(fs, "requested-by") {
		*requestedBy, _ = c.lookupEnv("USER")
	}
	db, err := dbFlags.database()
	if err != nil {
		return err
	}

	logger := logFlags.logger(c.stderr)
	st, j, err := service.Open(ctx, db, true, s.engineConfig(logger))
	if err != nil {
		return err
	}
	defer st.Close()
	if *wait {
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
		return precomputeCounts(ctx, j, st, ns, filter, *wait, c)
	}
	boards := make([]store.Board, len(ns))
	for i, n := range ns {
		if boards[i], err = j.Precompute(ctx, store.BoardRequest{N: n, RequestedBy: *requestedBy}, nil); err != nil {
			return fmt.Errorf("asking for board %d: %w", n, err)
		}
	}
	if !*wait {
		for _, b := range boards {
			fmt.Fprintln(c.stdout, progress.AskedFor(b, false))
		}
		return nil
	}
	return progress.Watch(ctx, st, ns, boards, c.stdout)
}
