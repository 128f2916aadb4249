package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// TestPlan plans N=12 with one task a chunk on Postgres: one chunk job per
// task is queued, real workers (a precompute engine) work them and close
// the board with the right counts, and planning it again is refused.
func TestPlan(t *testing.T) {
	ctx := t.Context()
	u, _ := pgtest.Schema(t)
	st := pgtest.Open(t, u)
	driver := riverpgxv5.New(st.Pool())
	if err := precompute.MigrateUp(ctx, driver); err != nil {
		t.Fatal(err)
	}
	env := envOf(map[string]string{"DATABASE_URL": u})

	tasks, err := solver.Tasks(12)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runPlan(ctx, []string{"12", "--tasks-per-chunk", "1"}, env, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var jobs int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = $1`, precompute.KindChunk).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != len(tasks) {
		t.Errorf("%d chunk jobs queued for the %d tasks of N=12 (%s)", jobs, len(tasks), out.String())
	}

	cfg := precompute.DefaultConfig()
	cfg.Workers = 2
	cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	e, err := precompute.New[pgx.Tx](st, driver, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(ctx)
	eventually.True(t, time.Minute, func() string {
		b, err := st.Board(ctx, 12)
		if err != nil {
			t.Fatal(err)
		}
		if b.State != store.Done {
			return fmt.Sprintf("board 12 not done: %+v", b)
		}
		if ref := oeis.MustLoad(t)[12]; b.Counts.Total != ref.Total || b.Counts.Unique != ref.Unique || b.ChunksTotal != len(tasks) {
			t.Errorf("board 12: %+v", b)
		}
		return ""
	})

	if err := runPlan(ctx, []string{"12"}, env, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "already") {
		t.Errorf("planning a done board again: %v", err)
	}
}
