package main

import (
	"context"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// TestServeStopMidBoard sends SIGTERM to serve while its workers compute
// N=13: it exits 0, its running chunks committed or rolled back, and
// another serve process started later finishes the board, with the right
// counts, the solver's solutions each stored once, and one completed job
// per chunk.
func TestServeStopMidBoard(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	env := []string{"DATABASE_URL=" + u, "NQUEENS_PRECOMPUTE=13"}
	first := startServe(t, env, "--workers", "1")
	st := openPostgres(t, u)
	var stoppedAt store.Board
	eventually(t, time.Minute, func() string {
		b, err := st.Board(context.Background(), 13)
		switch {
		case err != nil:
			return err.Error() // not asked for yet
		case b.State == store.Done:
			t.Fatalf("N=13 was done before serve could be stopped; stderr:\n%s", first.stderr.String())
		case b.ChunksDone == 0:
			return "no chunk of N=13 done"
		}
		stoppedAt = b
		return ""
	})
	first.stop(t) // exit 0 within its shutdown time
	after, err := st.Board(context.Background(), 13)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGTERM at %d of %d chunks; %d done when serve had exited", stoppedAt.ChunksDone, stoppedAt.ChunksTotal, after.ChunksDone)
	if after.State == store.Done {
		t.Fatal("N=13 was done by the time serve exited: nothing left to resume")
	}

	second := startServe(t, env, "--workers", "1")
	board := boardtest.WaitFinished(t, st, 2*time.Minute, 13)[13]
	boardtest.CheckCounts(t, board)
	boardtest.CheckStored(t, st, 13)
	checkChunksOnce(t, st, 13)
	second.stop(t)
}
