package metrics_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/buildinfo"
	"github.com/nqueens/nqueens/internal/metrics"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// scrape serves one /metrics request and returns the body.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// TestDatabaseMetrics reads the boards of a real SQLite store at scrape
// time; once the store is closed, the scrape still succeeds, without them
// and with nqueens_database_up 0.
func TestDatabaseMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := sqlitetest.OpenTemp(t)
	if _, _, err := st.RequestBoard(ctx, store.BoardRequest{N: 9}); err != nil {
		t.Fatal(err)
	}
	m := metrics.New()
	m.WatchDatabase(st, nil, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))

	body := scrape(t, m)
	for _, want := range []string{"\nnqueens_boards{state=\"pending\"} 1\n", "\nnqueens_boards{state=\"done\"} 0\n",
		"\nnqueens_solutions_stored 0\n", "\nnqueens_database_up 1\n", "\ngo_goroutines "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "nqueens_river_jobs") {
		t.Error("jobs reported without a job counter")
	}

	st.Close()
	body = scrape(t, m)
	if !strings.Contains(body, "\nnqueens_database_up 0\n") || strings.Contains(body, "nqueens_boards{") || !strings.Contains(body, "\ngo_goroutines ") {
		t.Errorf("with the store closed, want nqueens_database_up 0, no boards, the rest:\n%s", body)
	}
}

// TestOperationNames: clients choose operation names, so past 200 of them
// the label is "(other)"; an anonymous operation and a name that is no
// GraphQL name have labels of their own.
func TestOperationNames(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	for i := range 250 {
		m.Operation(server.Operation{Name: "Op" + strconv.Itoa(i), Outcome: server.OutcomeOK, Duration: time.Millisecond})
	}
	m.Operation(server.Operation{Name: "", Outcome: "BAD_USER_INPUT"})
	m.Operation(server.Operation{Name: "not a name", Outcome: "GRAPHQL_PARSE_FAILED"})
	body := scrape(t, m)
	for _, want := range []string{
		`nqueens_graphql_operations_total{operation="Op199",outcome="ok"} 1`,
		`nqueens_graphql_operations_total{operation="(other)",outcome="ok"} 50`,
		`nqueens_graphql_operation_duration_seconds_count{operation="(other)"} 50`,
		`nqueens_graphql_operations_total{operation="(anonymous)",outcome="BAD_USER_INPUT"} 1`,
		`nqueens_graphql_operations_total{operation="(invalid)",outcome="GRAPHQL_PARSE_FAILED"} 1`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `operation="Op200"`) {
		t.Error("the 201st name has a label of its own")
	}
}

// TestBuildInfo: /metrics says which build runs, with the labels
// `nqueens version` prints.
func TestBuildInfo(t *testing.T) {
	t.Parallel()
	info := buildinfo.Read()
	want := fmt.Sprintf("\nnqueens_build_info{goversion=%q,revision=%q,version=%q} 1\n", info.GoVersion, info.Revision, info.Version)
	if body := scrape(t, metrics.New()); !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %q:\n%s", want, body)
	}
}
