package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/server"
)

// TestReadiness: /readyz is 200 only when every check passes, says each
// check's status, and bounds a check that hangs. A failed check's reason
// is for the admin token only: without it /readyz says "failed". A
// degraded check (server.ErrDegraded) says so and leaves it 200.
func TestReadiness(t *testing.T) {
	t.Parallel()
	const token = "readyz-token"
	const reason = "unreachable: dial tcp 10.1.2.3:5432 user=nqueens: connection refused"
	ok := server.CheckerFunc(func(context.Context) error { return nil })
	down := server.CheckerFunc(func(context.Context) error { return errors.New(reason) })
	degraded := server.CheckerFunc(func(context.Context) error {
		return fmt.Errorf("%w: replica 1 down since 12:00:00: %s", server.ErrDegraded, reason)
	})
	hangs := server.CheckerFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	for _, tt := range []struct {
		checks        map[string]server.Checker
		adminToken    string
		authorization string
		status        int
		want          map[string]string
	}{
		{map[string]server.Checker{"database": ok, "workers": ok}, token, "", http.StatusOK, map[string]string{"database": "ok", "workers": "ok"}},
		{map[string]server.Checker{"database": down, "workers": ok}, token, "Bearer " + token, http.StatusServiceUnavailable,
			map[string]string{"database": reason, "workers": "ok"}},
		// A degraded check leaves the process ready, and says why to the
		// admin only.
		{map[string]server.Checker{"database": ok, "replicas": degraded}, token, "", http.StatusOK, map[string]string{"database": "ok", "replicas": "degraded"}},
		{map[string]server.Checker{"database": ok, "replicas": degraded}, token, "Bearer " + token, http.StatusOK,
			map[string]string{"database": "ok", "replicas": "degraded: replica 1 down since 12:00:00: " + reason}},
		{map[string]server.Checker{"database": down, "replicas": degraded}, token, "", http.StatusServiceUnavailable, map[string]string{"database": "failed", "replicas": "degraded"}},
		{map[string]server.Checker{"database": hangs}, token, "Bearer " + token, http.StatusServiceUnavailable, map[string]string{"database": context.DeadlineExceeded.Error()}},
		// Without the token, or with a wrong one, or when the server has
		// none: which check failed, not why.
		{map[string]server.Checker{"database": down, "workers": ok}, token, "", http.StatusServiceUnavailable, map[string]string{"database": "failed", "workers": "ok"}},
		{map[string]server.Checker{"database": down, "workers": ok}, token, "Bearer wrong", http.StatusServiceUnavailable, map[string]string{"database": "failed", "workers": "ok"}},
		{map[string]server.Checker{"database": down}, "", "Bearer ", http.StatusServiceUnavailable, map[string]string{"database": "failed"}},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/readyz", nil)
		if tt.authorization != "" {
			req.Header.Set("Authorization", tt.authorization)
		}
		server.Readiness(50*time.Millisecond, tt.adminToken, tt.checks).ServeHTTP(rec, req)
		var got struct {
			Ready   bool
			Checks  map[string]string
			Details string
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
		admin := strings.HasPrefix(tt.authorization, "Bearer "+token)
		hidden := rec.Code != http.StatusOK && !admin
		if hidden != strings.Contains(got.Details, "admin token") || (!admin && strings.Contains(rec.Body.String(), "10.1.2.3")) {
			t.Errorf("authorization %q: %s", tt.authorization, rec.Body)
		}
	}
}
