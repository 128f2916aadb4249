package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// These tests run `precompute --wait` alone on SQLite, a worker process
// (the real binary) killed with SIGKILL beside another that takes over its
// jobs, and several workers with the API server, each on a Postgres
// schema of its own. What they wrote is read back through the store and
// River's job table.

// TestPrecomputeWaitSQLite computes boards with `precompute --wait` on the
// embedded database, with no other process: stored boards up to the
// storage limit, counts only above it; asking again reports them done.
func TestPrecomputeWaitSQLite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	env := []string{"NQUEENS_SQLITE_PATH=" + path, "NQUEENS_STORE_MAX_N=10"}
	r := nqueensEnv(t, env, "precompute", "1-9,10", "11", "--wait")
	if r.code != 0 {
		t.Fatalf("precompute --wait: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	ref := oeis.MustLoad(t)
	for _, want := range []string{
		fmt.Sprintf("N=10 done: %d solutions, %d unique", ref[10].Total, ref[10].Unique),
		fmt.Sprintf("N=11 done: %d solutions, %d unique", ref[11].Total, ref[11].Unique),
		"(counts only)", "finished: 11/11 boards done",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("precompute --wait printed no %q:\n%s", want, r.stdout)
		}
	}
	st := sqlitetest.Open(t, path)
	for n := 1; n <= 11; n++ {
		b, err := st.Board(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		boardtest.CheckCounts(t, b)
		if b.StoresSolutions != (n <= 10) {
			t.Errorf("N=%d stores solutions: %t, with the storage limit at 10", n, b.StoresSolutions)
		}
		if n <= 10 {
			boardtest.CheckStored(t, st, n)
		}
	}
	again := nqueensEnv(t, env, "precompute", "10")
	if want := fmt.Sprintf("N=10 already done: %d solutions", ref[10].Total); again.code != 0 || !strings.Contains(again.stdout, want) {
		t.Errorf("precompute of a done board: exit %d, %q; want %q", again.code, again.stdout, want)
	}
}

func TestPrecomputeBadUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  []string
		args []string
		says string
	}{
		{nil, nil, "missing RANGE"},
		{nil, []string{"0-3"}, "from 1 to 27"},
		{nil, []string{"5-3"}, "increasing order"},
		{nil, []string{"28"}, "from 1 to 27"},
		{nil, []string{"twelve"}, "not a board size"},
		{nil, []string{"12", "--workers", "0"}, "--workers (NQUEENS_WORKERS) must be at least 1"},
		{nil, []string{"12", "--store-max-n", "40"}, "--store-max-n (NQUEENS_STORE_MAX_N) must be from 1 to 32, got 40"},
		{nil, []string{"12", "--rescue-after", "2s"}, "--rescue-after (NQUEENS_RESCUE_AFTER) must be at least 5s (5 heartbeats), got 2s"},
		{[]string{"NQUEENS_WORKERS=many"}, []string{"12"}, "NQUEENS_WORKERS"},
		{[]string{"NQUEENS_PRECOMPUTE_WAIT=maybe"}, []string{"12"}, "NQUEENS_PRECOMPUTE_WAIT"},
	} {
		r := nqueensEnv(t, append([]string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "x.db")}, tt.env...),
			append([]string{"precompute"}, tt.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("precompute %v with %v: exit %d, stderr %q; want exit 2 saying %q", tt.args, tt.env, r.code, r.stderr, tt.says)
		}
	}
	if r := nqueensEnv(t, []string{"NQUEENS_JOB_TIMEOUT=-1s"}, "worker"); r.code != exitUsage || !strings.Contains(r.stderr, "--job-timeout") {
		t.Errorf("worker with a negative job timeout: exit %d, %q", r.code, r.stderr)
	}
}

// startWorker runs `nqueens worker` in-process with env and args until
// the test stops it (or ends).
func startWorker(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	return background(t, env, append([]string{"worker"}, args...)...)
}

// checkFinishedOnce waits for board n to finish and checks it as a
// resumed board must be: counts equal to the reference, the solver's
// solutions each stored once, and one completed job per chunk. It returns
// how many River clients (workers, serve) completed chunks.
func checkFinishedOnce(t *testing.T, st *postgres.Store, n int) (clients int) {
	t.Helper()
	board := boardtest.WaitFinished(t, st, 2*time.Minute, n)[n]
	boardtest.CheckCounts(t, board)
	boardtest.CheckStored(t, st, n)
	return checkChunksOnce(t, st, n)
}

// interruptMidBoard waits until p has done some chunks of board n, not
// all, then interrupts it, and checks that the board is still unfinished
// afterwards: something is left for the next one to resume.
func interruptMidBoard(t *testing.T, st *postgres.Store, n int, p *serving, how string, interrupt func()) {
	t.Helper()
	var at store.Board
	eventually.True(t, time.Minute, func() string {
		b, err := st.Board(context.Background(), n) // an error: not asked for yet
		if err == nil && b.State == store.Done {
			t.Fatalf("N=%d was done before the %s; stderr:\n%s", n, how, p.stderr.String())
		}
		if err != nil || b.ChunksDone == 0 {
			return fmt.Sprintf("no chunk of N=%d done (%v); stderr:\n%s", n, err, p.stderr.String())
		}
		at = b
		return ""
	})
	interrupt()
	after, err := st.Board(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s at %d of %d chunks; %d done after it", how, at.ChunksDone, at.ChunksTotal, after.ChunksDone)
	if after.State == store.Done {
		t.Fatalf("N=%d was done by the time of the %s: nothing left to resume", n, how)
	}
}

// checkChunksOnce checks, in River's job table, that each chunk of board n
// has exactly one job and that it completed, and that there is one per
// chunk row, all of them done. It returns how many River clients
// (workers, serve) completed chunks.
func checkChunksOnce(t *testing.T, st *postgres.Store, n int) (clients int) {
	t.Helper()
	ctx := context.Background()
	board, err := st.Board(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	var jobs, completed, indexes, bad int
	err = st.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'completed'),
		    count(DISTINCT (args->>'index')::int),
		    count(*) FILTER (WHERE (args->>'index')::int NOT BETWEEN 0 AND $2 - 1),
		    count(DISTINCT attempted_by[array_length(attempted_by, 1)])
		FROM river_job WHERE kind = 'chunk' AND (args->>'n')::int = $1`, n, board.ChunksTotal).
		Scan(&jobs, &completed, &indexes, &bad, &clients)
	if err != nil {
		t.Fatal(err)
	}
	if jobs != board.ChunksTotal || completed != jobs || indexes != jobs || bad != 0 {
		t.Errorf("N=%d, %d chunks: River has %d chunk jobs, %d completed, for %d distinct chunks (%d out of range); want one completed job per chunk",
			n, board.ChunksTotal, jobs, completed, indexes, bad)
	}
	recs, err := st.Chunks(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.DoneAt.IsZero() || r.Counts == nil {
			t.Errorf("N=%d: chunk %d is not done", n, r.Index)
		}
	}
	return clients
}

// TestWorkerKilled kills one of two worker processes (SIGKILL: no chance
// to roll anything back or to say goodbye) in the middle of a board, with
// the default settings: the other rescues the chunk jobs the dead one held
// once its heartbeat has been missing for --rescue-after (20 s), each of
// them running again within a minute of the kill, and the board ends done
// (its time after the kill is logged: on a quiet machine well under a
// minute, but it includes the rest of the work), with the right counts, the
// solver's solutions each stored once (stored boards), and every chunk
// done by one completed job. Both kinds of board: N=14, stored, and N=17,
// counts only (above the default storage limit).
func TestWorkerKilled(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		n      int
		stored bool
	}{
		{"stored", 14, true},
		{"counts-only", 17, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, _ := pgtest.Schema(t)
			env := []string{"DATABASE_URL=" + u}
			if r := nqueensEnv(t, env, "migrate", "up"); r.code != 0 {
				t.Fatalf("migrate up: exit %d, %s", r.code, r.stderr)
			}
			victim, survivor := spawn(t, env, "worker"), spawn(t, env, "worker")
			victimID := workerID(t, victim)
			if r := nqueensEnv(t, env, "precompute", strconv.Itoa(tt.n)); r.code != 0 {
				t.Fatalf("precompute %d: exit %d, %s", tt.n, r.code, r.stderr)
			}
			st := pgtest.Open(t, u)
			var killed time.Time
			interruptMidBoard(t, st, tt.n, victim, "kill", func() {
				if err := victim.cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killed = time.Now()
				<-victim.done
			})
			held := heldJobs(t, st, victimID)
			if len(held) == 0 {
				t.Fatalf("the killed worker %s held no job: nothing to rescue", victimID)
			}

			// The board's end waits on the rest of its work as well, which
			// a loaded machine stretches; the bound is on the rescue.
			board := boardtest.WaitFinished(t, st, 5*time.Minute, tt.n)[tt.n]
			// A chunk the dead worker wrote just before the kill, its job
			// not yet marked completed, lets the board finish before that
			// job is rescued: wait for the held jobs themselves.
			eventually.True(t, 2*time.Minute, func() string {
				var open int
				err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM river_job
					WHERE id = ANY($1) AND state <> 'completed'`, held).Scan(&open)
				if err != nil || open > 0 {
					return fmt.Sprintf("%d of the %d jobs the killed worker held not completed yet (%v)", open, len(held), err)
				}
				return ""
			})
			retried := checkRescued(t, st, held, victimID)
			t.Logf("N=%d: %d jobs held by the killed worker, all running again %.1f s after the kill; board done %.1f s after it (%d chunks)",
				tt.n, len(held), retried.Sub(killed).Seconds(), board.FinishedAt.Sub(killed).Seconds(), board.ChunksTotal)
			if took := retried.Sub(killed); took > time.Minute {
				t.Errorf("N=%d: the killed worker's jobs ran again %s after the kill, want within a minute", tt.n, took)
			}
			boardtest.CheckCounts(t, board)
			if tt.stored {
				boardtest.CheckStored(t, st, tt.n)
			}
			checkChunksOnce(t, st, tt.n)
			survivor.stop(t)
		})
	}
}

// workerID waits for worker p to say its worker id (the River
// client id it fetches jobs under) in its log, and returns it.
func workerID(t *testing.T, p *serving) string {
	t.Helper()
	re := regexp.MustCompile(`msg="working jobs" worker=(\S+)`)
	var id string
	eventually.True(t, time.Minute, func() string {
		m := re.FindStringSubmatch(p.stderr.String())
		if m == nil {
			return "the worker has not logged its id:\n" + p.stderr.String()
		}
		id = m[1]
		return ""
	})
	return id
}

// heldJobs returns the ids of the jobs River shows running under worker id.
func heldJobs(t *testing.T, st *postgres.Store, id string) []int64 {
	t.Helper()
	var ids []int64
	err := st.Pool().QueryRow(context.Background(), `SELECT coalesce(array_agg(id), '{}') FROM river_job
		WHERE state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`, id).Scan(&ids)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkRescued checks that the jobs the killed worker held were rescued
// once each, with an error naming it, and then completed by another; it
// returns when the last of them started its second attempt.
func checkRescued(t *testing.T, st *postgres.Store, held []int64, killed string) (lastRetry time.Time) {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT id, state, attempted_by,
		    coalesce((metadata->>'river:rescue_count')::int, 0), errors[1]->>'error', attempted_at
		FROM river_job WHERE id = ANY($1)`, held)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id int64
		var state, firstErr string
		var by []string
		var rescues int
		var attempted time.Time // the start of its last attempt
		if err := rows.Scan(&id, &state, &by, &rescues, &firstErr, &attempted); err != nil {
			t.Fatal(err)
		}
		seen++
		if attempted.After(lastRetry) {
			lastRetry = attempted
		}
		if state != "completed" || len(by) != 2 || by[0] != killed || by[1] == killed || rescues != 1 ||
			!strings.Contains(firstErr, killed+`" is gone`) {
			t.Errorf("job %d held by the killed worker: %s, attempted by %v, %d rescues, first error %q; want rescued once, then completed by another",
				id, state, by, rescues, firstErr)
		}
	}
	if rows.Err() != nil || seen != len(held) {
		t.Errorf("read %d of the %d jobs held by the killed worker: %v", seen, len(held), rows.Err())
	}
	return lastRetry
}

// TestWorkersAndServe runs two workers and the API server (serve works
// jobs too) on one Postgres schema, asks for N=14 through the
// GraphQL mutation, and checks that the three shared the chunks, each
// chunk done once, with exact counts. River UI answers the admin only.
// Each runs a River client of its own, as each process would.
func TestWorkersAndServe(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	const token = "test-admin-token"
	env := []string{"DATABASE_URL=" + u, "NQUEENS_ADMIN_TOKEN=" + token}
	api := startServe(t, env, "--workers", "1")
	workers := []*serving{startWorker(t, env, "--workers", "1"), startWorker(t, env, "--workers", "1")}
	if body := api.postAs(t, token, `{"query":"mutation { precompute(n: 14) { n state } }"}`); !strings.Contains(body, `"precompute":{"n":14,"state":"PENDING"}`) {
		t.Fatalf("precompute mutation: %s", body)
	}

	st := pgtest.Open(t, u)
	if clients := checkFinishedOnce(t, st, 14); clients < 2 {
		t.Errorf("the chunks of N=14 were completed by %d River client(s), want them shared", clients)
	} else {
		t.Logf("%d River clients completed the chunks of N=14", clients)
	}

	ui := strings.TrimSuffix(api.url, "/graphql") + "/riverui/"
	for _, tt := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer " + token, http.StatusOK},
		{"Basic " + basic("admin", token), http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, ui, nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("GET /riverui/ with %q: %d, want %d", tt.auth, resp.StatusCode, tt.want)
		}
	}

	// A change asked for by another site's page is refused, even with the
	// browser's credentials.
	req, _ := http.NewRequest(http.MethodPost, ui+"api/jobs/cancel", strings.NewReader(`{"ids":["1"]}`))
	req.Header.Set("Authorization", "Basic "+basic("admin", token))
	req.Header.Set("Origin", "https://elsewhere.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST to River UI: %s; want 403", resp.Status)
	}

	for _, w := range workers {
		w.stop(t)
	}
	api.stop(t)
}

func basic(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}
