package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/storetest"
)

// serving is a running "nqueens serve" process.
type serving struct {
	cmd    *exec.Cmd
	url    string // the GraphQL endpoint
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts the real binary with env and args on a free port and
// waits until it serves with its database open (the database is waited
// for in the background: see launchServe).
func startServe(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	s := launchServe(t, env, args...)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(s.stderr.String(), `"database open"`); { // its log, text or JSON
		if time.Now().After(deadline) {
			t.Fatalf("the database is not open after a minute; stderr:\n%s", s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s
}

// launchServe starts the real binary with env and args on a free port and
// waits for the line that says where it serves, which comes before its
// database is open.
func launchServe(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	// No boards asked for on start (serve's default computes N=1..15)
	// unless env says otherwise.
	cmd.Env = append(append(os.Environ(), "NQUEENS_PRECOMPUTE=none"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &serving{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v; stderr:\n%s", err, s.stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("first line %q has no address", line)
	}
	s.url = strings.Fields(line[i:])[0]
	go io.Copy(io.Discard, stdout)
	return s
}

func (s *serving) post(t *testing.T, q string) string {
	t.Helper()
	resp, err := http.Post(s.url, "application/json", strings.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// stop sends SIGTERM: the server must shut down gracefully and exit 0.
func (s *serving) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after SIGTERM: %v; stderr:\n%s", err, s.stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("no exit 15s after SIGTERM; stderr:\n%s", s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "stopped") {
		t.Errorf("stderr lacks the shutdown log:\n%s", s.stderr.String())
	}
}

// TestServe starts the real binary over each database the environment
// can select, with N=8 stored beforehand through the store, asks it
// queries over HTTP and stops it with SIGTERM. N=8 pages from the store,
// other boards from the solver.
func TestServe(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name string
		env  func(t *testing.T) ([]string, store.Store)
	}{
		{"sqlite", func(t *testing.T) ([]string, store.Store) {
			path := filepath.Join(t.TempDir(), "nqueens.db")
			st, err := sqlite.Open(context.Background(), sqlite.Config{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			return []string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=" + path}, st
		}},
		{"postgres", func(t *testing.T) ([]string, store.Store) {
			u, _ := pgtest.Schema(t)
			st, err := postgres.Open(context.Background(), postgres.Config{URL: u})
			if err != nil {
				t.Fatal(err)
			}
			return []string{"DATABASE_URL=" + u}, st
		}},
	} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			env, st := db.env(t)
			storetest.Load(context.Background(), t, st, 8, solver.DefaultChunkDepth(8))
			st.Close()

			// No precompute on start: N=10 stays unknown to the store.
			s := startServe(t, append(env, "NQUEENS_REQUEST_TIMEOUT=5s", "NQUEENS_ADMIN_TOKEN=", "NQUEENS_PRECOMPUTE=none"), "--max-page-size", "50")
			resp, err := http.Get(strings.TrimSuffix(s.url, "/graphql") + "/healthz")
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("/healthz: %v %v", resp, err)
			}
			resp.Body.Close()
			ref := oeis.MustLoad(t)
			want := strconv.FormatUint(ref[10].Total, 10)
			if got := s.post(t, `{"query":"{ count(n: 10) { total source state } }"}`); !strings.Contains(got, `"total":"`+want+`","source":"SOLVER","state":"UNKNOWN"`) {
				t.Errorf("count(10): %s", got)
			}
			want = strconv.FormatUint(ref[8].Total, 10)
			if got := s.post(t, `{"query":"{ count(n: 8) { total source state } solutions(n: 8, first: 1) { totalCount source } }"}`); !strings.Contains(got, `"count":{"total":"`+want+`","source":"STORE","state":"DONE"}`) ||
				!strings.Contains(got, `"solutions":{"totalCount":"`+want+`","source":"STORE"}`) {
				t.Errorf("N=8, stored: %s", got)
			}
			// The flag set the page size limit.
			if got := s.post(t, `{"query":"{ solutions(n: 10, first: 51) { totalCount } }"}`); !strings.Contains(got, "from 0 to 50") {
				t.Errorf("first: 51 with --max-page-size 50: %s", got)
			}
			s.stop(t)
		})
	}
}

// TestServeWebsocketLimits: the websocket settings reach the server: the
// init timeout and the connection cap set by environment variable, the
// operations cap by flag.
func TestServeWebsocketLimits(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"),
		"NQUEENS_WS_INIT_TIMEOUT=300ms", "NQUEENS_WS_MAX_CONNECTIONS=1"}
	s := startServe(t, env, "--ws-max-subscriptions", "1")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(s.url, "http")
	dial := func() (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(ctx, wsURL, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	}

	silent, _, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer silent.CloseNow()
	start := time.Now()
	if _, _, err := silent.Read(ctx); websocket.CloseStatus(err) != 4408 || time.Since(start) > 4*time.Second {
		t.Fatalf("a silent websocket: %v after %s; want close 4408 after 300ms", err, time.Since(start))
	}

	var c *websocket.Conn
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, _, err = dial(); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no websocket accepted once the silent one closed: %v", err)
		}
	}
	defer c.CloseNow()
	if other, resp, err := dial(); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		if other != nil {
			other.CloseNow()
		}
		t.Fatalf("a second websocket with NQUEENS_WS_MAX_CONNECTIONS=1: %v, %+v; want 503", err, resp)
	}
	endless := `{"query":"subscription { boardProgress(n: 10) { n } }"}`
	for _, m := range []string{`{"type":"connection_init"}`, `{"id":"a","type":"subscribe","payload":` + endless + `}`, `{"id":"b","type":"subscribe","payload":` + endless + `}`} {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for len(got) < 3 {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, string(msg))
	}
	// a's first board and b's refusal come in either order.
	all := strings.Join(got, "\n")
	if !strings.Contains(got[0], "connection_ack") || !strings.Contains(all, `"id":"a","type":"next"`) ||
		!strings.Contains(all, `"id":"b","type":"error"`) || !strings.Contains(all, "SUBSCRIPTION_LIMIT_EXCEEDED") {
		t.Errorf("messages %q; want the ack, a's first board, and an error for b (--ws-max-subscriptions 1)", got)
	}
}

// TestServeMigrations: serve applies the migrations on start, unless
// --migrate=false (or NQUEENS_MIGRATE=false).
func TestServeMigrations(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args, env []string
		migrated  bool
	}{
		{nil, nil, true},
		{[]string{"--migrate=false"}, nil, false},
		{nil, []string{"NQUEENS_MIGRATE=false"}, false},
	} {
		env := append([]string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"), "NQUEENS_PRECOMPUTE=none"}, tt.env...)
		startServe(t, env, tt.args...).stop(t)
		r := nqueensEnv(t, env, "migrate", "version")
		if migrated := !strings.Contains(r.stdout, "version 0\n"); r.code != 0 || migrated != tt.migrated {
			t.Errorf("serve %v %v, then migrate version: exit %d, %q; want migrated %v", tt.args, tt.env, r.code, r.stdout, tt.migrated)
		}
	}
}

func TestServeBadSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  []string
		args []string
		says string
	}{
		{[]string{"NQUEENS_MAX_PAGE_SIZE=lots"}, nil, "NQUEENS_MAX_PAGE_SIZE"},
		{[]string{"NQUEENS_REQUEST_TIMEOUT=10"}, nil, "NQUEENS_REQUEST_TIMEOUT"},
		{nil, []string{"--max-page-size", "0"}, "--max-page-size"},
		{nil, []string{"--depth-limit", "-1"}, "--depth-limit"},
		{nil, []string{"extra"}, "no arguments"},
		{nil, []string{"--addr", "127.0.0.1:99999"}, "99999"},
		{nil, []string{"--max-page-size", "10000"}, "--max-page-size"},
		{[]string{"NQUEENS_MIGRATE=maybe"}, nil, "NQUEENS_MIGRATE"},
		// An unreachable database is waited for (outage_test.go), one
		// that cannot be used is not.
		{[]string{"DATABASE_URL=postgres://%zz"}, []string{"--addr", "127.0.0.1:0"}, "opening the database (postgres"},
	} {
		cmd := exec.Command(binary, append([]string{"serve"}, tt.args...)...)
		cmd.Env = append(os.Environ(), append([]string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}, tt.env...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(stderr.String(), tt.says) {
			t.Errorf("serve %v with %v: %v, stderr %q; want a failure naming %s", tt.args, tt.env, err, stderr.String(), tt.says)
		}
	}
}

func TestGenericPlans(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?plan_cache_mode=force_generic_plan&sslmode=disable"},
		{"postgresql://u@h/db", "postgresql://u@h/db?plan_cache_mode=force_generic_plan"},
		{"postgres://u@h/db?plan_cache_mode=auto", "postgres://u@h/db?plan_cache_mode=auto"},
		{"host=h user=u dbname=db", "host=h user=u dbname=db plan_cache_mode=force_generic_plan"},
		{"host=h plan_cache_mode=auto", "host=h plan_cache_mode=auto"},
	} {
		if got := genericPlans(tt.in); got != tt.want {
			t.Errorf("genericPlans(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
