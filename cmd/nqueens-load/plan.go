package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
)

// runPlan plans a counts-only board with chunks of a chosen number of the
// counter's tasks and queues its chunk jobs, as a board job does
// (precompute.Engine.PlanBoard), for the `nqueens worker` processes running
// on the same Postgres to work. One task a chunk makes thousands of jobs
// that take well under a millisecond to compute at N=16, so that the time
// the board takes is River's and the database's per job
// (docs/SCALING.md, "The first bottleneck").
func runPlan(ctx context.Context, args []string, env lookupEnv, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load plan", flag.ContinueOnError)
	perChunk := fs.Int("tasks-per-chunk", 1, "the counter's tasks in a chunk: one chunk job each")
	database := databaseFlags(fs, env)
	nArg, err := parseBoardArgs(fs, args, "usage: nqueens-load plan N [--tasks-per-chunk K] [--database-url URL] (DATABASE_URL: the Postgres database the workers use)")
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	n, err := strconv.Atoi(nArg)
	if err != nil || n < 4 || n > precompute.MaxN || *perChunk < 1 {
		return usageError(fmt.Sprintf("plan: N must be from 4 to %d and --tasks-per-chunk positive", precompute.MaxN))
	}
	db, err := database()
	if err != nil {
		return err
	}
	if db.Dialect() != migrations.Postgres {
		return usageError("plan: --database-url (DATABASE_URL) must name the Postgres database the workers use")
	}
	st, j, err := service.Open(ctx, db, true, engineConfig(stdout))
	if err != nil {
		return err
	}
	defer st.Close()
	p := store.BoardPlan{N: n, Tasks: true, TasksPerChunk: *perChunk, SolverVersion: precompute.SolverVersion}
	b, claimed, err := j.PlanBoard(ctx, p)
	if err != nil {
		return err
	}
	if !claimed {
		return fmt.Errorf("board N=%d is %s already: drop it (or use another database) first", n, b.State)
	}
	fmt.Fprintf(stdout, "N=%d planned: %d chunk jobs of %d tasks queued\n", n, b.ChunksTotal, *perChunk)
	return nil
}
