package metrics_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/metrics"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestStoreMetrics observes a real SQLite store: every call is timed by
// method, and failures are counted by code, except ENOTFOUND, an answer.
func TestStoreMetrics(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := metrics.New()
	s := sqlitetest.Open(t, filepath.Join(t.TempDir(), "nqueens.db"), func(c *sqlite.Config) { c.Observe = m.ObserveStore })

	if _, _, err := s.RequestBoard(ctx, store.BoardRequest{N: 6}); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Board(ctx, 6); err != nil || b.State != store.Pending {
		t.Fatalf("Board(6): %+v, %v", b, err)
	}
	if _, err := s.Board(ctx, 7); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
		t.Fatalf("Board(7): %v, want ENOTFOUND", err)
	}
	if _, err := s.Board(ctx, 0); nqueens.ErrorCode(err) != nqueens.EINVALID {
		t.Fatalf("Board(0): %v, want EINVALID", err)
	}

	series := map[string]string{} // the series' lines, without their values
	for line := range strings.Lines(scrape(t, m)) {
		if strings.HasPrefix(line, "nqueens_store_") && !strings.Contains(line, "_bucket{") && !strings.Contains(line, "_sum{") {
			name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
			series[name] = value
		}
	}
	want := map[string]string{
		`nqueens_store_query_duration_seconds_count{method="Board"}`:                 "3",
		`nqueens_store_query_duration_seconds_count{method="RequestBoard"}`:          "1",
		`nqueens_store_errors_total{code="` + nqueens.EINVALID + `",method="Board"}`: "1",
	}
	if len(series) != len(want) {
		t.Errorf("series %v, want %v", series, want)
	}
	for k, v := range want {
		if series[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, series[k], v, series)
		}
	}
}
