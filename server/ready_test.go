package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nqueens/nqueens/server"
)

// TestReadiness: /readyz is 200 only when every check passes, says each
// check's status or reason, and bounds a check that hangs.
func TestReadiness(t *testing.T) {
	t.Parallel()
	ok := server.CheckerFunc(func(context.Context) error { return nil })
	down := server.CheckerFunc(func(context.Context) error { return errors.New("unreachable: connection refused") })
	hangs := server.CheckerFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	for _, tt := range []struct {
		checks map[string]server.Checker
		status int
		want   map[string]string
	}{
		{map[string]server.Checker{"database": ok, "workers": ok}, http.StatusOK, map[string]string{"database": "ok", "workers": "ok"}},
		{map[string]server.Checker{"database": down, "workers": ok}, http.StatusServiceUnavailable,
			map[string]string{"database": "unreachable: connection refused", "workers": "ok"}},
		{map[string]server.Checker{"database": hangs}, http.StatusServiceUnavailable, map[string]string{"database": context.DeadlineExceeded.Error()}},
	} {
		rec := httptest.NewRecorder()
		server.Readiness(50*time.Millisecond, tt.checks).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var got struct {
			Ready  bool
			Checks map[string]string
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", rec.Body, err)
		}
		if rec.Code != tt.status || got.Ready != (tt.status == http.StatusOK) || len(got.Checks) != len(tt.want) ||
			rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%d %s; want %d %v", rec.Code, rec.Body, tt.status, tt.want)
		}
		for name, want := range tt.want {
			if got.Checks[name] != want {
				t.Errorf("check %s: %q, want %q", name, got.Checks[name], want)
			}
		}
	}
}
