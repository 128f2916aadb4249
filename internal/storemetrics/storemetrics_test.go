package storemetrics_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/storemetrics"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestStoreMetrics wraps a real SQLite store: every call is timed by
// method, and failures are counted by code, except ENOTFOUND, an answer.
func TestStoreMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := sqlitetest.OpenTemp(t)
	reg := prometheus.NewRegistry()
	s := storemetrics.New(st, reg)
	defer s.Close()

	if _, _, err := s.RequestBoard(ctx, store.BoardRequest{N: 6}); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Board(ctx, 6); err != nil || b.State != store.Pending {
		t.Fatalf("Board(6) through the wrapper: %+v, %v", b, err)
	}
	if _, err := s.Board(ctx, 7); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
		t.Fatalf("Board(7): %v, want ENOTFOUND", err)
	}
	if _, err := s.Board(ctx, 0); nqueens.ErrorCode(err) != nqueens.EINVALID {
		t.Fatalf("Board(0): %v, want EINVALID", err)
	}

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]float64{} // name method code → count
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetValue() // labels sorted by name: code, method
			}
			series[key] = m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	want := map[string]float64{
		"nqueens_store_query_duration_seconds Board":                3,
		"nqueens_store_query_duration_seconds RequestBoard":         1,
		"nqueens_store_errors_total " + nqueens.EINVALID + " Board": 1,
	}
	if len(series) != len(want) {
		t.Errorf("series %v, want %v", series, want)
	}
	for k, v := range want {
		if series[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, series[k], v, series)
		}
	}
}
