package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// These tests run serve and worker against a database that is down: a
// closed port, or a Postgres cluster of the test's own (pgtest.Cluster)
// stopped and started under the running server. The shared test server
// stays up for the other tests.

// readiness is what /readyz answers.
type readiness struct {
	status int
	Ready  bool              `json:"ready"`
	Checks map[string]string `json:"checks"`
}

// readyz asks /readyz with the admin token (none: ""), which shows the
// failed checks' reasons.
func (s *serving) readyz(t *testing.T, token string) readiness {
	t.Helper()
	status, body := s.get(t, "/readyz", token)
	r := readiness{status: status}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("/readyz answered %d, not JSON: %v", status, err)
	}
	if r.Ready != (r.status == http.StatusOK) || len(r.Checks) != 3 {
		t.Fatalf("/readyz: %d %+v", r.status, r)
	}
	return r
}

func (s *serving) healthy(t *testing.T) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(s.url, "/graphql") + "/healthz")
	if err != nil {
		t.Fatalf("/healthz: %v; stderr:\n%s", err, s.stderr.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %s", resp.Status)
	}
}

// postAs posts a GraphQL request with the admin token.
func (s *serving) postAs(t *testing.T, token, q string) string {
	t.Helper()
	_, b := s.request(t, http.MethodPost, "/graphql", q, "Authorization", bearer(token))
	return string(b)
}

// unavailable checks that queries needing the database answer
// UNAVAILABLE, within 5 s (the request timeout is longer), and that those
// needing none still work.
func unavailable(t *testing.T, s *serving, queries ...string) {
	t.Helper()
	for _, q := range queries {
		start := time.Now()
		got := s.post(t, `{"query":"`+q+`"}`)
		if !strings.Contains(got, `"code":"UNAVAILABLE"`) {
			t.Errorf("%s with the database down: %s", q, got)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %s with the database down", q, d)
		}
	}
	if got := s.post(t, `{"query":"{ validate(placement: [1, 3, 0, 2]) { valid } }"}`); !strings.Contains(got, `"valid":true`) {
		t.Errorf("validate with the database down: %s", got)
	}
}

// closedPort returns the address of a TCP port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestWaitForDatabase: serve and worker started while their database is
// unreachable (a closed port) stay up, say why at warn level, and exit 0
// when stopped while they wait. serve meanwhile answers /healthz, not
// /readyz, UNAVAILABLE to what needs the database and the rest as usual.
func TestWaitForDatabase(t *testing.T) {
	t.Parallel()
	const token = "wait-token"
	env := []string{"DATABASE_URL=postgres://postgres@" + closedPort(t) + "/nqueens?sslmode=disable", "NQUEENS_REQUEST_TIMEOUT=30s",
		"NQUEENS_ADMIN_TOKEN=" + token}
	s := launchServe(t, env)
	w := startWorker(t, env)
	s.healthy(t)
	// Until the first attempt has failed, /readyz can only say "not
	// connected yet"; then it says why.
	eventually.True(t, 10*time.Second, func() string {
		r := s.readyz(t, token)
		if r.status != http.StatusServiceUnavailable || !strings.HasPrefix(r.Checks["database"], "unreachable: ") ||
			!strings.Contains(r.Checks["database"], "connection refused") || r.Checks["workers"] == "ok" || r.Checks["migrations"] == "ok" {
			return fmt.Sprintf("/readyz with the database down: %d %+v", r.status, r)
		}
		return ""
	})
	// Without the token: which checks failed, not the database's address.
	if r := s.readyz(t, ""); r.status != http.StatusServiceUnavailable || r.Checks["database"] != "failed" || r.Checks["workers"] != "failed" {
		t.Errorf("/readyz without the admin token, the database down: %d %+v", r.status, r)
	}
	unavailable(t, s, `{ count(n: 8) { total } }`, `{ boards { n } }`, `{ solutions(n: 8, first: 2) { totalCount } }`)
	for _, p := range []*serving{s, w} {
		eventually.True(t, 10*time.Second, func() string {
			if logs := p.stderr.String(); !strings.Contains(logs, "level=WARN msg=\"the database is unreachable; retrying\"") || !strings.Contains(logs, "attempt=2") {
				return "no second attempt logged:\n" + logs
			}
			return ""
		})
	}
	s.stop(t)
	w.stop(t)
}

// TestBadDatabaseAtStart: what waiting cannot fix ends serve at once with
// a message: a URL that does not parse, a migration that fails (a dirty
// schema, as a migration that failed halfway leaves it).
func TestBadDatabaseAtStart(t *testing.T) {
	t.Parallel()
	dirty := filepath.Join(t.TempDir(), "dirty.db")
	if r := nqueensEnv(t, []string{"NQUEENS_SQLITE_PATH=" + dirty}, "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate up: %d %s", r.code, r.stderr)
	}
	if err := execSQLite(dirty, "UPDATE schema_migrations SET dirty = 1"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env  []string
		says []string
	}{
		{[]string{"DATABASE_URL=postgres://%zz"}, []string{"opening the database (postgres", "bad Postgres URL"}},
		{[]string{"NQUEENS_SQLITE_PATH=" + dirty}, []string{"opening the database (sqlite", "Dirty database version"}},
	} {
		r := nqueensEnv(t, tt.env, "serve", "--addr", "127.0.0.1:0")
		out := r.stdout + r.stderr
		if r.code != exitFailure {
			t.Errorf("serve with %v: exit %d; want %d\n%s", tt.env, r.code, exitFailure, out)
		}
		for _, want := range tt.says {
			if !strings.Contains(out, want) {
				t.Errorf("serve with %v says no %q:\n%s", tt.env, want, out)
			}
		}
	}
}

// TestReadyzSchema: /readyz is 503 while the schema is not at the version
// the binary expects, as serve --migrate=false over an empty database
// leaves it (its workers off), and 200 once serve has migrated it.
func TestReadyzSchema(t *testing.T) {
	t.Parallel()
	const token = "schema-token"
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"), "NQUEENS_ADMIN_TOKEN=" + token}
	s := startServe(t, env, "--migrate=false")
	if r := s.readyz(t, token); r.status != http.StatusServiceUnavailable || r.Checks["database"] != "ok" ||
		!strings.HasPrefix(r.Checks["migrations"], "the schema is at version 0, this binary expects") || !strings.HasPrefix(r.Checks["workers"], "off: ") {
		t.Errorf("/readyz over an empty database, not migrated: %d %+v", r.status, r)
	}
	s.stop(t)
	s = startServe(t, env)
	if r := s.readyz(t, ""); !r.Ready {
		t.Errorf("/readyz once migrated: %d %+v", r.status, r)
	}
	s.stop(t)
}

// TestDatabaseOutage runs serve over a Postgres cluster of the test's own:
// started while the cluster is down, serve becomes ready when it comes up
// (and computes the boards of --precompute); while the cluster is stopped
// again, in the middle of a board, what needs the database answers
// UNAVAILABLE quickly and the process stays up; when it is back, serving
// and the workers resume by themselves, and the board ends right.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t)
	ref := oeis.MustLoad(t)
	const token = "outage-token"
	s := launchServe(t, []string{"DATABASE_URL=" + c.URL, "NQUEENS_PRECOMPUTE=1-8", "NQUEENS_ADMIN_TOKEN=" + token, "NQUEENS_REQUEST_TIMEOUT=30s"},
		"--workers", "1")
	// Boards the server has not seen done: their rows are read from the
	// database every time (done ones are remembered).
	needDB := []string{`{ count(n: 11) { total } }`, `{ boards { n } }`, `{ board(n: 9) { state } }`}

	// (a) Down at start.
	s.healthy(t)
	if r := s.readyz(t, token); r.status != http.StatusServiceUnavailable || !strings.HasPrefix(r.Checks["database"], "unreachable: ") {
		t.Errorf("/readyz before the cluster starts: %d %+v", r.status, r)
	}
	unavailable(t, s, append(needDB, `{ count(n: 8) { total } }`)...)
	if got := s.postAs(t, token, `{"query":"mutation { precompute(n: 9) { n } }"}`); !strings.Contains(got, `"code":"UNAVAILABLE"`) {
		t.Errorf("precompute before the cluster starts: %s", got)
	}

	c.Start()
	eventually.True(t, time.Minute, func() string {
		if r := s.readyz(t, ""); !r.Ready {
			return fmt.Sprintf("/readyz after the cluster started: %+v", r)
		}
		return ""
	})
	total8 := strconv.FormatUint(ref[8].Total, 10)
	eventually.True(t, time.Minute, func() string {
		if got := s.post(t, `{"query":"{ count(n: 8) { total source state } }"}`); !strings.Contains(got, `{"total":"`+total8+`","source":"STORE","state":"DONE"}`) {
			return "N=8 (--precompute 1-8) is not done: " + got
		}
		return ""
	})
	if got := s.post(t, `{"query":"{ solutions(n: 8, first: 2) { totalCount source } }"}`); !strings.Contains(got, `{"totalCount":"`+total8+`","source":"STORE"}`) {
		t.Errorf("a page of N=8: %s", got)
	}

	// (b) Down while serving, in the middle of N=13, and for longer than
	// River retries recording a job's outcome (about 7 s): the chunks that
	// failed for want of the database are left to River's own recovery.
	if got := s.postAs(t, token, `{"query":"mutation { precompute(n: 13) { n } }"}`); strings.Contains(got, `"errors"`) {
		t.Fatalf("precompute(13): %s", got)
	}
	st := pgtest.Open(t, c.URL)
	eventually.True(t, time.Minute, func() string {
		b, err := st.Board(context.Background(), 13)
		if err != nil || b.ChunksDone == 0 {
			return fmt.Sprintf("no chunk of N=13 done: %+v, %v", b, err)
		}
		t.Logf("stopping the cluster at %d of %d chunks of N=13", b.ChunksDone, b.ChunksTotal)
		return ""
	})
	c.Stop()
	// Throughout the outage, serve stays up and says what is missing.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	outage := time.After(10 * time.Second)
	for over := false; !over; {
		unavailable(t, s, needDB...)
		s.healthy(t)
		if r := s.readyz(t, token); r.status != http.StatusServiceUnavailable || !strings.HasPrefix(r.Checks["database"], "unreachable: ") {
			t.Errorf("/readyz with the cluster stopped: %d %+v", r.status, r)
		}
		select {
		case <-tick.C:
		case <-outage:
			over = true
		}
	}

	c.Start()
	eventually.True(t, time.Minute, func() string {
		if got := s.post(t, `{"query":"{ boards { n } }"}`); strings.Contains(got, `"errors"`) {
			return "boards after the cluster came back: " + got
		}
		if r := s.readyz(t, ""); !r.Ready {
			return fmt.Sprintf("/readyz after the cluster came back: %+v", r)
		}
		return ""
	})
	// The workers work again: N=13 finishes, each chunk once, and a board
	// asked for now gets computed.
	checkFinishedOnce(t, st, 13)
	if got := s.postAs(t, token, `{"query":"mutation { precompute(n: 9) { n } }"}`); strings.Contains(got, `"errors"`) {
		t.Fatalf("precompute after the cluster came back: %s", got)
	}
	total9 := strconv.FormatUint(ref[9].Total, 10)
	eventually.True(t, time.Minute, func() string {
		if got := s.post(t, `{"query":"{ count(n: 9) { total state } }"}`); !strings.Contains(got, `{"total":"`+total9+`","state":"DONE"}`) {
			return "N=9 asked for after the outage is not done: " + got
		}
		return ""
	})
	s.stop(t)
}

// execSQLite runs a statement on the SQLite file at path.
func execSQLite(path, statement string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(statement)
	return err
}
