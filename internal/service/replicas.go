package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
)

// openReplicas opens the read replicas at urls in front of st, the
// primary (postgres.Replicated: a board's reads go to one replica once it
// shows the board done, else to the primary), logging when one goes down
// or comes back.
func openReplicas(ctx context.Context, st store.Reader, urls []string, observe store.Observer, logger *slog.Logger) (*postgres.Replicated, error) {
	primary, ok := st.(*postgres.Store)
	if !ok {
		return nil, errors.New("read replicas are Postgres servers: they need the database to be Postgres (DATABASE_URL)")
	}
	cfg := postgres.ReplicasConfig{Recheck: postgres.DefaultRecheck, OnChange: func(s postgres.ReplicaStatus) {
		if s.Up {
			logger.Info("read replica up: it reads the boards it shows done", "replica", s.Name)
			return
		}
		logger.Warn("read replica down: its reads go to the primary until it answers", "replica", s.Name, "err", s.Err)
	}}
	for _, u := range urls {
		rc := postgres.DefaultConfig()
		rc.URL, rc.Observe = genericPlans(u), observe
		cfg.Replicas = append(cfg.Replicas, rc)
	}
	r, err := postgres.OpenReplicated(ctx, primary, cfg)
	if err != nil {
		return nil, fmt.Errorf("read replicas: %w", err)
	}
	return r, nil
}

// Replicas returns the status of the read replicas: none until the
// database is open, or without them.
func (u *Startup) Replicas() []postgres.ReplicaStatus {
	u.mu.Lock()
	r := u.replicas
	u.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.Replicas()
}

// checkReplicas is /readyz's "replicas": degraded (server.ErrDegraded,
// still ready) while a replica is down, since its reads go to the
// primary.
func (u *Startup) checkReplicas(context.Context) error {
	u.mu.Lock()
	r := u.replicas
	u.mu.Unlock()
	if r == nil {
		return errNotUpYet
	}
	var down []string
	for _, s := range r.Replicas() {
		switch {
		case s.Up:
		case s.Err == nil:
			down = append(down, s.Name+" not checked yet")
		default:
			down = append(down, fmt.Sprintf("%s down since %s: %v", s.Name, s.DownSince.UTC().Format(time.RFC3339), cause(s.Err)))
		}
	}
	if len(down) > 0 {
		return fmt.Errorf("%w: %s; their boards are read from the primary", server.ErrDegraded, strings.Join(down, "; "))
	}
	return nil
}
