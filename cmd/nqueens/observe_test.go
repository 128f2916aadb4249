package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// scrape reads /metrics as series → value ("name{labels}" as Prometheus
// writes it, labels sorted by name).
func (s *serving) scrape(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(s.url, "/graphql") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return apitest.ParseMetrics(t, body)
}

// postWithID posts a GraphQL request with an X-Request-Id and returns the
// id the server answered with.
func (s *serving) postWithID(t *testing.T, id, body string) string {
	t.Helper()
	resp, _ := s.request(t, http.MethodPost, "/graphql", body, "X-Request-Id", id)
	return resp.Header.Get("X-Request-Id")
}

// TestServeMetricsAndLogs runs serve over each database with N=8
// stored beforehand and N=1..5 computed on start, JSON logs, and the
// database chosen by flags: /metrics counts the operations by name and
// outcome with their latencies, the page cache's hits, the store's calls,
// the boards by state and River's jobs by kind and state; the request log
// line carries the client's request id and the operation's name.
func TestServeMetricsAndLogs(t *testing.T) {
	t.Parallel()
	for _, db := range []struct {
		name string
		open func(t *testing.T) (args []string, st store.ReadCloser)
	}{
		{"sqlite", func(t *testing.T) ([]string, store.ReadCloser) {
			path := filepath.Join(t.TempDir(), "flagged.db")
			st := sqlitetest.Open(t, path)
			return []string{"--sqlite-path", path}, st
		}},
		{"postgres", func(t *testing.T) ([]string, store.ReadCloser) {
			u, _ := pgtest.Schema(t)
			return []string{"--database-url", u}, pgtest.Open(t, u)
		}},
	} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			args, st := db.open(t)
			storetest.Load(context.Background(), t, st, 8, solver.DefaultChunkDepth(8))
			st.Close()
			s := startServe(t, []string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=/nonexistent/not-this.db", "NQUEENS_PRECOMPUTE=1-5"},
				append(args, "--log-format", "json")...)

			// Wait for the boards of --precompute: 5 done besides N=8.
			var m map[string]float64
			eventually.True(t, time.Minute, func() string {
				m = s.scrape(t)
				if m[`nqueens_boards{state="done"}`] != 6 || m[`nqueens_river_jobs{kind="board",state="completed"}`] != 5 {
					return fmt.Sprintf("boards and jobs: %v\nstderr:\n%s", m, s.stderr.String())
				}
				return ""
			})
			// Solutions of N=1..5 and N=8: 1+0+0+2+10 and 92.
			if m["nqueens_solutions_stored"] != 105 || m[`nqueens_boards{state="running"}`] != 0 || m["nqueens_database_up"] != 1 ||
				m[`nqueens_river_jobs{kind="chunk",state="completed"}`] == 0 || m[`nqueens_river_jobs{kind="chunk",state="discarded"}`] != 0 {
				t.Errorf("database metrics: solutions %v, running %v, up %v, chunks completed %v, discarded %v",
					m["nqueens_solutions_stored"], m[`nqueens_boards{state="running"}`], m["nqueens_database_up"],
					m[`nqueens_river_jobs{kind="chunk",state="completed"}`], m[`nqueens_river_jobs{kind="chunk",state="discarded"}`])
			}
			if _, ok := m["go_goroutines"]; !ok {
				t.Error("no Go runtime metrics")
			}
			if _, ok := m["process_resident_memory_bytes"]; !ok {
				t.Error("no process metrics")
			}
			// What the server sheds and follows, each series there from
			// the start (at zero while nothing was shed).
			for _, series := range []string{`nqueens_pool_total{pool="connections"}`, `nqueens_pool_share{pool="memory"}`,
				`nqueens_refusals_total{pool="rate_limit",scope="client"}`, `nqueens_refusals_total{pool="exports",scope="total"}`,
				`nqueens_websocket_refusals_total{reason="MESSAGE_TOO_BIG"}`, `nqueens_connections_closed_total{reason="evicted_silent"}`,
				`nqueens_connections{state="open"}`, `nqueens_subscriptions{what="subscribers"}`, "nqueens_memory_budget_bytes",
				`nqueens_answer_cache_requests_total{result="hit"}`} {
				if _, ok := m[series]; !ok {
					t.Errorf("no %s in /metrics", series)
				}
			}
			if m[`nqueens_connections{state="open"}`] < 1 || m["nqueens_memory_budget_bytes"] < 64<<20 {
				t.Errorf("connections open %v (the scrape's own at least), memory budget %v (want at least the least allowed, 64 MiB)",
					m[`nqueens_connections{state="open"}`], m["nqueens_memory_budget_bytes"])
			}

			const page = `{"query":"query PageEight { solutions(n: 8, first: 3) { edges { cursor } } }"}`
			if id := s.postWithID(t, "test-request-42", page); id != "test-request-42" {
				t.Errorf("X-Request-Id answered %q, want the client's", id)
			}
			s.postWithID(t, "test-request-43", page) // the same request: from the answer cache
			// The same page in other words: built again, from the page cache.
			s.postWithID(t, "test-request-45", `{"query":"query PageEightAgain { solutions(n: 8, first: 3) { edges { node { placement } } } }"}`)
			s.postWithID(t, "test-request-44", `{"query":"query Broken { count(n: 0) { total } }"}`)

			after := s.scrape(t)
			const okOps = `nqueens_graphql_operations_total{operation="PageEight",outcome="ok"}`
			if got := after[okOps] - m[okOps]; got != 2 {
				t.Errorf("%s rose by %v, want 2", okOps, got)
			}
			const latency = `nqueens_graphql_operation_duration_seconds_count{operation="PageEight"}`
			if got := after[latency] - m[latency]; got != 2 || after[`nqueens_graphql_operation_duration_seconds_sum{operation="PageEight"}`] <= 0 {
				t.Errorf("%s rose by %v, want 2 (with a positive sum)", latency, got)
			}
			if got := after[`nqueens_graphql_operations_total{operation="Broken",outcome="BAD_USER_INPUT"}`]; got != 1 {
				t.Errorf("Broken with BAD_USER_INPUT counted %v times, want 1", got)
			}
			const hits = `nqueens_cache_lookups_total{cache="page",result="hit"}`
			if got := after[hits] - m[hits]; got < 1 {
				t.Errorf("%s rose by %v on a page asked again in other words, want 1 or more", hits, got)
			}
			const answerHits = `nqueens_answer_cache_requests_total{result="hit"}`
			if got := after[answerHits] - m[answerHits]; got != 1 {
				t.Errorf("%s rose by %v on a repeated request, want 1", answerHits, got)
			}
			if after[`nqueens_store_query_duration_seconds_count{method="Page"}`] < 1 ||
				after[`nqueens_store_query_duration_seconds_count{method="Board"}`] < 1 {
				t.Errorf("no store latencies for Page and Board: %v, %v",
					after[`nqueens_store_query_duration_seconds_count{method="Page"}`], after[`nqueens_store_query_duration_seconds_count{method="Board"}`])
			}

			line := logLine(t, s, "test-request-42")
			if line["operation"] != "PageEight" || line["status"] != float64(200) || line["path"] != "/graphql" || line["bytes"] == float64(0) {
				t.Errorf("request log line %v; want operation PageEight, status 200, path /graphql, bytes", line)
			}
			s.stop(t)
		})
	}
}

// logLine returns serve's JSON log line of the request with id, waiting a
// little for it.
func logLine(t *testing.T, s *serving, id string) map[string]any {
	t.Helper()
	var found map[string]any
	eventually.True(t, 5*time.Second, func() string {
		sc := bufio.NewScanner(strings.NewReader(s.stderr.String()))
		for sc.Scan() {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("--log-format json wrote a line that is not JSON: %v: %s", err, sc.Text())
			}
			if line["msg"] == "request" && line["request_id"] == id {
				found = line
				return ""
			}
		}
		return "no request line with id " + id + "; stderr:\n" + s.stderr.String()
	})
	return found
}

// TestBadSettings: a bad value of a setting, given by flag or by
// environment variable, stops serve, worker and precompute before they
// start, with exit code 2 and a message that names the setting.
func TestBadSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  []string
		args []string
		says string
	}{
		{[]string{"NQUEENS_LOG_LEVEL=loud"}, []string{"serve"}, `NQUEENS_LOG_LEVEL="loud": must be one of debug, info, warn, error`},
		{nil, []string{"serve", "--log-level", "verbose"}, "-log-level: must be one of debug, info, warn, error"},
		{[]string{"NQUEENS_LOG_FORMAT=xml"}, []string{"serve"}, `NQUEENS_LOG_FORMAT="xml": must be text or json`},
		{nil, []string{"serve", "--log-format", "yaml"}, "-log-format: must be text or json"},
		{[]string{"NQUEENS_RATE_LIMIT=-1"}, []string{"serve"}, "--rate-limit (NQUEENS_RATE_LIMIT)"},
		{[]string{"NQUEENS_RATE_LIMIT=fast"}, []string{"serve"}, `NQUEENS_RATE_LIMIT="fast"`},
		{[]string{"NQUEENS_RATE_BURST=0"}, []string{"serve"}, "--rate-burst (NQUEENS_RATE_BURST) must be at least 1"},
		{[]string{"NQUEENS_MAX_PAGE_SIZE=0"}, []string{"serve"}, "--max-page-size (NQUEENS_MAX_PAGE_SIZE) must be at least 1, got 0"},
		{nil, []string{"serve", "--max-page-size", "10000"}, "--max-page-size (NQUEENS_MAX_PAGE_SIZE) must be below 10000"},
		{nil, []string{"serve", "--count-max-n", "-1"}, "--count-max-n (NQUEENS_COUNT_MAX_N) must be from 0 to 32 (0: never count on the spot), got -1"},
		{nil, []string{"serve", "--page-cache-bytes", "-1"}, "--page-cache-bytes (NQUEENS_PAGE_CACHE_BYTES) must be at least 0"},
		{nil, []string{"serve", "--max-tokens", "99"}, "--max-tokens (NQUEENS_MAX_TOKENS) must be at least 100, got 99"},
		{nil, []string{"serve", "--solver-slots", "0"}, "--solver-slots (NQUEENS_SOLVER_SLOTS) must be at least 1, got 0"},
		{nil, []string{"serve", "--solver-queue-per-client", "0"}, "--solver-queue-per-client (NQUEENS_SOLVER_QUEUE_PER_CLIENT) must be at least 1, got 0"},
		{[]string{"NQUEENS_MAX_CONNECTIONS_PER_CLIENT=4096"}, []string{"serve"}, "--max-connections-per-client (NQUEENS_MAX_CONNECTIONS_PER_CLIENT) must be from 1 to 2048 (at most MaxConnections), got 4096"},
		{nil, []string{"serve", "--max-idle-connections-per-client", "-1"}, "--max-idle-connections-per-client (NQUEENS_MAX_IDLE_CONNECTIONS_PER_CLIENT) must be from 0 to 64"},
		{nil, []string{"serve", "--export-max-per-client", "3"}, "--export-max-per-client (NQUEENS_EXPORT_MAX_PER_CLIENT) must be from 1 to 2 (at most ExportMaxConcurrent), got 3"},
		{nil, []string{"serve", "--write-timeout", "5s"}, "--write-timeout (NQUEENS_WRITE_TIMEOUT) (5s) must be longer than --request-timeout (NQUEENS_REQUEST_TIMEOUT) (10s)"},
		{nil, []string{"serve", "--write-timeout", "0s"}, "--write-timeout (NQUEENS_WRITE_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_SQLITE_PATH="}, []string{"serve"}, "--sqlite-path (NQUEENS_SQLITE_PATH) is empty"},
		{[]string{"NQUEENS_REQUEST_TIMEOUT=0s"}, []string{"serve"}, "--request-timeout (NQUEENS_REQUEST_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_SHUTDOWN_TIMEOUT=-1s"}, []string{"serve"}, "--shutdown-timeout (NQUEENS_SHUTDOWN_TIMEOUT) must not be negative"},
		{[]string{"NQUEENS_WS_MAX_CONNECTIONS=0"}, []string{"serve"}, "--ws-max-connections (NQUEENS_WS_MAX_CONNECTIONS) must be at least 1"},
		{nil, []string{"serve", "--ws-max-subscriptions", "0"}, "--ws-max-subscriptions (NQUEENS_WS_MAX_SUBSCRIPTIONS) must be at least 1"},
		{[]string{"NQUEENS_WS_INIT_TIMEOUT=0s"}, []string{"serve"}, "--ws-init-timeout (NQUEENS_WS_INIT_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_WS_PING_INTERVAL=soon"}, []string{"serve"}, `NQUEENS_WS_PING_INTERVAL="soon"`},
		{nil, []string{"serve", "--ws-pong-timeout", "-1s"}, "--ws-pong-timeout (NQUEENS_WS_PONG_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_WS_MAX_CONNECTIONS_PER_CLIENT=0"}, []string{"serve"}, "--ws-max-connections-per-client (NQUEENS_WS_MAX_CONNECTIONS_PER_CLIENT) must be at least 1"},
		{nil, []string{"serve", "--ws-max-message-bytes", "1000"}, "--ws-max-message-bytes (NQUEENS_WS_MAX_MESSAGE_BYTES) must be at least 1024, got 1000"},
		{[]string{"NQUEENS_WS_MESSAGE_TIMEOUT=0s"}, []string{"serve"}, "--ws-message-timeout (NQUEENS_WS_MESSAGE_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_PRECOMPUTE=1-99"}, []string{"serve"}, "--precompute (NQUEENS_PRECOMPUTE)"},
		{[]string{"NQUEENS_TRUSTED_PROXIES=10.0.0.0/8, nginx"}, []string{"serve"}, `NQUEENS_TRUSTED_PROXIES="10.0.0.0/8, nginx": "nginx" is not an address or a network: want e.g. 172.30.57.10, 10.0.0.0/8 or fd00::/8`},
		{nil, []string{"serve", "--trusted-proxies", "10.0.0.300"}, `"10.0.0.300" is not an address or a network`},
		{[]string{"NQUEENS_MEMORY_LIMIT=1GB"}, []string{"serve"}, `NQUEENS_MEMORY_LIMIT="1GB": must be a whole number of bytes, or of KiB, MiB, GiB or TiB with that suffix`},
		{nil, []string{"serve", "--memory-limit", "lots"}, "-memory-limit: must be a whole number of bytes"},
		{nil, []string{"serve", "--memory-limit", "32MiB"}, "the memory budget from --memory-limit (NQUEENS_MEMORY_LIMIT) is 32MiB, less than the 64MiB the server needs idle"},
		{[]string{"GOMEMLIMIT=huge"}, []string{"serve"}, `GOMEMLIMIT="huge": must be a whole number of bytes`},
		{[]string{"GOGC=fast"}, []string{"serve"}, `GOGC="fast": must be off or a percentage`},
		{[]string{"NQUEENS_INFLIGHT_BYTES=1KiB"}, []string{"serve"}, "--inflight-bytes (NQUEENS_INFLIGHT_BYTES) must be at least 1048576, got 1024"},
		{nil, []string{"serve", "--inflight-bytes-per-client", "2GiB"}, "--inflight-bytes-per-client (NQUEENS_INFLIGHT_BYTES_PER_CLIENT) must be from 65536 to 134217728 (at most InflightBytes)"},
		{[]string{"NQUEENS_ADMISSION_WAIT=0s"}, []string{"serve"}, "--admission-wait (NQUEENS_ADMISSION_WAIT) must be positive"},
		{[]string{"NQUEENS_EXPORT_MAX_DURATION=0s"}, []string{"serve"}, "--export-max-duration (NQUEENS_EXPORT_MAX_DURATION) must be positive"},
		{nil, []string{"serve", "--export-stall-timeout", "-1s"}, "--export-stall-timeout (NQUEENS_EXPORT_STALL_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_WORKERS=0"}, []string{"worker"}, "--workers (NQUEENS_WORKERS) must be at least 1"},
		{[]string{"NQUEENS_STORE_MAX_N=40"}, []string{"precompute", "4"}, "--store-max-n (NQUEENS_STORE_MAX_N)"},
		{[]string{"NQUEENS_LOG_FORMAT=yaml"}, []string{"worker"}, `NQUEENS_LOG_FORMAT="yaml"`},
		{[]string{"NQUEENS_LOG_LEVEL=loud"}, []string{"precompute", "4"}, `NQUEENS_LOG_LEVEL="loud"`},
	} {
		r := nqueensEnv(t, append([]string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}, tt.env...), tt.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("%v with %v: exit %d, stderr %q; want exit 2 and %q", tt.args, tt.env, r.code, r.stderr, tt.says)
		}
	}
}

// TestServeHelpListsSettings: `serve --help` lists every setting of
// serve with its environment variable.
func TestServeHelpListsSettings(t *testing.T) {
	t.Parallel()
	help := ok(t, "serve", "--help")
	for _, s := range newServeOptions().settings() {
		if !strings.Contains(help, "\n  --"+s.flag) || !strings.Contains(help, "$"+s.envName()) {
			t.Errorf("serve --help lacks --%s or $%s", s.flag, s.envName())
		}
	}
}
