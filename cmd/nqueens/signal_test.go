package main

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// TestServeStopMidBoard sends SIGTERM to a serve process (the real
// binary) while its workers compute N=14: it exits 0, its running chunks
// committed or rolled back, and another serve started later finishes the
// board, with the right counts, the solver's solutions each stored once,
// and one completed job per chunk.
func TestServeStopMidBoard(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	// N=14, not smaller: on a quick machine the 13 chunks of N=13 could
	// all commit while serve shuts down, leaving nothing to resume.
	env := []string{"DATABASE_URL=" + u, "NQUEENS_PRECOMPUTE=14"}
	first := spawn(t, noPrecompute(env), serveArgs([]string{"--workers", "1"})...)
	first.waitServing(t)
	first.waitFor(t, time.Minute, `"database open"`)
	st := pgtest.Open(t, u)
	interruptMidBoard(t, st, 14, first, "SIGTERM", func() { first.stop(t) }) // exit 0 within its shutdown time

	second := startServe(t, env, "--workers", "1")
	checkFinishedOnce(t, st, 14)
	second.stop(t)
}

// TestServeFinishesRequestInFlight stops serve while it computes an
// answer (N=16 counted on the spot, about a second of both cores): the
// answer still comes, complete, and then serve exits 0.
func TestServeFinishesRequestInFlight(t *testing.T) {
	t.Parallel()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}
	s := startServe(t, env, "--count-max-n", "16", "--request-timeout", "2m", "--shutdown-timeout", "2m")
	answer := make(chan string, 1)
	go func() {
		resp, err := http.Post(s.url, "application/json", strings.NewReader(`{"query":"{ count(n: 16) { total unique } }"}`))
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answer <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	// The request is in once it has asked the store for the board (which
	// has no counts): its count, on the spot, comes after.
	const lookedUp = `nqueens_store_query_duration_seconds_count{method="Board"}`
	eventually.True(t, time.Minute, func() string {
		if n := s.scrape(t)[lookedUp]; n < 1 {
			return fmt.Sprintf("%s is %v: the request has not reached the store", lookedUp, n)
		}
		return ""
	})
	s.stop(t)
	ref := oeis.MustLoad(t)[16]
	want := fmt.Sprintf(`200 {"data":{"count":{"total":"%d","unique":"%d"}}}`, ref.Total, ref.Unique)
	if got := <-answer; got != want {
		t.Errorf("the request in flight when serve was stopped got\n%s\nwant\n%s", got, want)
	}
}
