package graph_test

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// setupEngine starts the real server over a new store of backend
// ("postgres" or "sqlite") with the real precompute engine behind its
// mutations (one worker, not started: the test calls j.Start when it
// wants the jobs worked) and token as the admin token, as opts change
// the server's configuration.
func setupEngine(t *testing.T, backend, token string, opts ...func(*server.Config)) (*apitest.Bundle, *service.Jobs) {
	t.Helper()
	db := service.Database{Path: filepath.Join(t.TempDir(), "nqueens.db")}
	if backend == "postgres" {
		u, _ := pgtest.Schema(t)
		db = service.Database{URL: u}
	}
	cfg := precompute.DefaultConfig()
	cfg.Workers, cfg.JobTimeout, cfg.Logger = 1, time.Minute, slog.New(slog.DiscardHandler)
	st, j, err := service.Open(t.Context(), db, true, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	api := apitest.Setup(t, append([]func(*server.Config){func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored, c.Graph.Precompute, c.Graph.AdminToken = st, st, j, token
	}}, opts...)...)
	return api, j
}
