package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// startServe runs serve in-process with env and args on a free port and
// waits until it serves with its database open (the database is waited
// for in the background: see launchServe).
func startServe(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	s := launchServe(t, env, args...)
	s.waitFor(t, time.Minute, `"database open"`) // its log, text or JSON
	return s
}

// launchServe runs serve in-process with env and args on a free port and
// waits for the line that says where it serves, which comes before its
// database is open.
func launchServe(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	s := background(t, noPrecompute(env), serveArgs(args)...)
	s.waitServing(t)
	return s
}

// serveArgs are serve's arguments on a free port, then args.
func serveArgs(args []string) []string {
	return append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)
}

// noPrecompute is env after NQUEENS_PRECOMPUTE=none: no boards asked for
// on start (serve's default computes N=1..15) unless env says otherwise.
func noPrecompute(env []string) []string {
	return append([]string{"NQUEENS_PRECOMPUTE=none"}, env...)
}

// waitServing waits for serve's first line, which says where it serves,
// and keeps the address.
func (s *serving) waitServing(t *testing.T) {
	t.Helper()
	eventually.True(t, time.Minute, func() string {
		line, _, _ := strings.Cut(s.stdout.String(), "\n")
		if i := strings.Index(line, "http://"); i >= 0 {
			s.url = strings.Fields(line[i:])[0]
			return ""
		}
		if s.exited() {
			t.Fatalf("exited %d before serving; stderr:\n%s", s.code, s.stderr.String())
		}
		return "no address on stdout: " + s.stdout.String()
	})
}

func (s *serving) post(t *testing.T, q string) string {
	t.Helper()
	_, b := s.request(t, http.MethodPost, "/graphql", q)
	return string(b)
}

// request sends method path to s's server, with body as JSON when not
// empty and header's name/value pairs (those with an empty value left
// out), and returns the answer and its body: the one way the tests of the
// real binary speak HTTP to it.
func (s *serving) request(t *testing.T, method, path, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(s.url, "/graphql")+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] != "" {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// bearer is the Authorization header's value for token, none for "".
func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

// TestServe starts serve over each database the environment can select, with N=8 stored beforehand through the store, asks it
// queries over HTTP and stops it. N=8 pages from the store,
// other boards from the solver.
func TestServe(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name string
		env  func(t *testing.T) ([]string, store.ReadCloser)
	}{
		{"sqlite", func(t *testing.T) ([]string, store.ReadCloser) {
			path := filepath.Join(t.TempDir(), "nqueens.db")
			st := sqlitetest.Open(t, path)
			return []string{"NQUEENS_SQLITE_PATH=" + path}, st
		}},
		{"postgres", func(t *testing.T) ([]string, store.ReadCloser) {
			u, _ := pgtest.Schema(t)
			return []string{"DATABASE_URL=" + u}, pgtest.Open(t, u)
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
// init timeout and the connection caps (per client and in all) set by
// environment variable, the operations cap by flag.
func TestServeWebsocketLimits(t *testing.T) {
	t.Parallel()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"),
		"NQUEENS_WS_INIT_TIMEOUT=300ms", "NQUEENS_WS_MAX_CONNECTIONS=2", "NQUEENS_WS_MAX_CONNECTIONS_PER_CLIENT=1"}
	s := startServe(t, env, "--ws-max-subscriptions", "1")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(s.url, "http")
	// dialFrom dials from the loopback address ip: another client.
	dialFrom := func(ip string) (*websocket.Conn, *http.Response, error) {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		return websocket.Dial(ctx, wsURL, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: client})
	}
	dial := func() (*websocket.Conn, *http.Response, error) { return dialFrom("127.0.0.1") }

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
	eventually.True(t, 10*time.Second, func() string {
		if c, _, err = dial(); err != nil {
			return fmt.Sprintf("no websocket accepted once the silent one closed: %v", err)
		}
		return ""
	})
	defer c.CloseNow()
	if other, resp, err := dial(); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		if other != nil {
			other.CloseNow()
		}
		t.Fatalf("a client's second websocket with NQUEENS_WS_MAX_CONNECTIONS_PER_CLIENT=1: %v, %+v; want 429", err, resp)
	}
	other, _, err := dialFrom("127.0.0.2")
	if err != nil {
		t.Fatalf("another client's websocket: %v", err)
	}
	defer other.CloseNow()
	if third, resp, err := dialFrom("127.0.0.3"); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		if third != nil {
			third.CloseNow()
		}
		t.Fatalf("a third client's websocket with NQUEENS_WS_MAX_CONNECTIONS=2: %v, %+v; want 503", err, resp)
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

// TestServeConnectionLimits: the connection settings reach the server:
// past a client's share its next connection is answered 429 saying the
// share. The share set by flag; and, when only the total is set below
// it, the share follows the total.
func TestServeConnectionLimits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		env   []string
		args  []string
		share int
	}{
		{"flag", nil, []string{"--max-connections-per-client", "2"}, 2},
		{"total below the default share", []string{"NQUEENS_MAX_CONNECTIONS=16"}, nil, 16},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := append([]string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}, tt.env...)
			s := startServe(t, env, tt.args...)
			addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/graphql")
			var conns []net.Conn
			for i := range tt.share + 1 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
				t.Cleanup(func() { c.Close() })
				if i < tt.share {
					continue
				}
				_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					t.Fatalf("connection %d past a share of %d: %v", i+1, tt.share, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := fmt.Sprintf("has %d connections open", tt.share); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), want) {
					t.Errorf("connection %d: %d %s; want 429 saying %q", i+1, resp.StatusCode, body, want)
				}
			}
			for _, c := range conns {
				c.Close() // a silent connection would hold the shutdown up
			}
			s.stop(t)
		})
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
		env := append([]string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}, tt.env...)
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
		r := nqueensEnv(t, append([]string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}, tt.env...), append([]string{"serve"}, tt.args...)...)
		if r.code == exitOK || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("serve %v with %v: exit %d, stderr %q; want a failure naming %s", tt.args, tt.env, r.code, r.stderr, tt.says)
		}
	}
}
