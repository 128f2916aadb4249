package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
)

// runPlan plans a counts-only board with chunks of a chosen number of the
// counter's tasks and queues its chunk jobs, as a board job does, for the
// `nqueens worker` processes running on the same Postgres to work. One
// task a chunk makes thousands of jobs that take well under a millisecond
// to compute at N=16, so that the time the board takes is River's and the
// database's per job (docs/SCALING.md, "The first bottleneck").
func runPlan(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load plan", flag.ContinueOnError)
	perChunk := fs.Int("tasks-per-chunk", 1, "the counter's tasks in a chunk: one chunk job each")
	nArg, err := parseBoardArgs(fs, args, "usage: nqueens-load plan N [--tasks-per-chunk K] (DATABASE_URL: the Postgres database the workers use)")
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	n, err := strconv.Atoi(nArg)
	if err != nil || n < 4 || n > precompute.MaxN || *perChunk < 1 {
		return usageError(fmt.Sprintf("plan: N must be from 4 to %d and --tasks-per-chunk positive", precompute.MaxN))
	}
	url := os.Getenv("DATABASE_URL")
	if !strings.HasPrefix(url, "postgres") {
		return usageError("plan: DATABASE_URL must name the Postgres database the workers use")
	}
	cfg := postgres.DefaultConfig()
	cfg.URL = url
	st, err := postgres.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	client, err := river.NewClient(riverpgxv5.New(st.Pool()), &river.Config{})
	if err != nil {
		return err
	}
	p := store.BoardPlan{N: n, Tasks: true, TasksPerChunk: *perChunk, SolverVersion: precompute.SolverVersion}
	b, claimed, err := st.PlanBoard(ctx, p, func(ctx context.Context, tx any, _ store.Board, todo []store.ChunkRecord) error {
		params := make([]river.InsertManyParams, len(todo))
		for i, c := range todo {
			params[i] = river.InsertManyParams{Args: precompute.ChunkArgs{N: c.N, Index: c.Index, Tasks: c.Tasks}}
		}
		_, err := client.InsertManyTx(ctx, tx.(pgx.Tx), params)
		return err
	})
	if err != nil {
		return err
	}
	if !claimed {
		return fmt.Errorf("board N=%d is %s already: drop it (or use another database) first", n, b.State)
	}
	fmt.Fprintf(stdout, "N=%d planned: %d chunk jobs of %d tasks queued\n", n, b.ChunksTotal, *perChunk)
	return nil
}
