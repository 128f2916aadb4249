package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// Checker checks one thing the service needs in order to serve (the
// database answers, the schema is at the expected version, the workers
// run): nil when it is ready, else an error that says why not. Checkers
// live with what they check, so that this package needs no database
// driver or job system.
type Checker interface {
	Check(ctx context.Context) error
}

// CheckerFunc adapts a function to Checker.
type CheckerFunc func(ctx context.Context) error

// Check calls f.
func (f CheckerFunc) Check(ctx context.Context) error { return f(ctx) }

// ErrDegraded marks a check's error (wrapped with %w) that leaves the
// process ready: it serves everything, with less (a read replica is down,
// and its reads go to the primary). /readyz shows the check "degraded"
// (its reason with the admin token) and still answers 200, so that a
// load balancer does not take every process out for a replica's outage.
var ErrDegraded = errors.New("degraded")

// Readiness is the /readyz handler: it runs every check at once, each
// bounded by timeout (positive), and answers 200 when all pass, 503
// otherwise, with each check's "ok" or "failed":
//
//	{"ready":false,"checks":{"database":"failed","migrations":"ok","workers":"ok"},"details":"…"}
//
// A request with the admin token (Authorization: Bearer …) gets each
// failed check's reason instead, which may name the database's host, user
// or driver: those are for the operator, not for anyone who can reach the
// port. Without an admin token (""), nobody gets them.
//
//	{"ready":false,"checks":{"database":"unreachable: dial tcp …","migrations":"ok","workers":"ok"}}
//
// /healthz, by contrast, only says that the process answers.
func Readiness(timeout time.Duration, adminToken string, checks map[string]Checker) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		admin := adminToken != "" && subtle.ConstantTimeCompare([]byte(bearer(r.Header.Get("Authorization"))), []byte(adminToken)) == 1
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		report := struct {
			Ready   bool              `json:"ready"`
			Checks  map[string]string `json:"checks"`
			Details string            `json:"details,omitempty"`
		}{Ready: true, Checks: make(map[string]string, len(checks))}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for name, c := range checks {
			wg.Go(func() {
				status, failed := "ok", false
				if err := c.Check(ctx); err != nil {
					status, failed = "failed", !errors.Is(err, ErrDegraded)
					if !failed {
						status = "degraded"
					}
					if admin {
						status = err.Error()
					}
				}
				mu.Lock()
				defer mu.Unlock()
				report.Checks[name] = status
				report.Ready = report.Ready && !failed
			})
		}
		wg.Wait()
		status := http.StatusOK
		if !report.Ready {
			status = http.StatusServiceUnavailable
			if !admin {
				report.Details = "send the admin token (Authorization: Bearer <NQUEENS_ADMIN_TOKEN>) to see why each failed check failed"
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(report)
	})
}
