package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

func newTestDatabase(t *testing.T) storetest.Database[pgx.Tx] {
	u, _ := pgtest.Schema(t)
	return storetest.Database[pgx.Tx]{
		Open: func(t *testing.T, skipMigrations bool) store.Store[pgx.Tx] {
			return pgtest.Open(t, u, func(c *postgres.Config) { c.SkipMigrations = skipMigrations })
		},
		Migrator: func(t *testing.T) *migrations.Migrator {
			m, err := postgres.NewMigrator(u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			return m
		},
		MarkDirty: func(t *testing.T) {
			if _, err := pgtest.Open(t, u, func(c *postgres.Config) { c.SkipMigrations = true }).Pool().Exec(t.Context(), "UPDATE schema_migrations SET dirty = true"); err != nil {
				t.Fatal(err)
			}
		},
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Backend[pgx.Tx]{Dialect: migrations.Postgres, NewDatabase: newTestDatabase})
}

// TestWriteChunkInTx checks that inTx gets the pgx transaction of the
// chunk's own writes: it sees the chunk done before the commit.
func TestWriteChunkInTx(t *testing.T) {
	t.Parallel()
	s := pgtest.OpenSchema(t)
	ctx := t.Context()
	if _, _, err := s.PlanBoard(ctx, store.BoardPlan{N: 6, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "test"}, nil); err != nil {
		t.Fatal(err)
	}
	c := solver.Chunk{N: 6, Prefix: solver.Placement{1}}
	_, err := s.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, func(ctx context.Context, pgtx pgx.Tx) error {
		var done bool
		var rows int
		err := pgtx.QueryRow(ctx, `SELECT done_at IS NOT NULL, (SELECT count(*) FROM solutions WHERE n = 6)
			FROM chunks WHERE n = 6 AND prefix = '\x01'`).Scan(&done, &rows)
		if err == nil && (!done || rows != 1) {
			err = fmt.Errorf("inside the transaction: chunk done %t, %d rows; want done and its one solution", done, rows)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUnavailable checks that a server that cannot be reached is
// EUNAVAILABLE.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	// Port 1 on the loopback: nothing listens there, the refusal is immediate.
	cfg := postgres.DefaultConfig()
	cfg.URL = "postgres://postgres@127.0.0.1:1/nqueens?sslmode=disable&connect_timeout=5"
	_, err := postgres.Open(t.Context(), cfg)
	if code := nqueens.ErrorCode(err); code != nqueens.EUNAVAILABLE {
		t.Errorf("Open of an unreachable server: %q (%v), want %q", code, err, nqueens.EUNAVAILABLE)
	}
	cfg.URL = "mysql://nope"
	_, err = postgres.Open(t.Context(), cfg)
	if code := nqueens.ErrorCode(err); code != nqueens.EINVALID {
		t.Errorf("Open with a bad URL: %q (%v), want %q", code, err, nqueens.EINVALID)
	}
}

// TestConfigRefused: Open refuses a configuration it cannot work with,
// EINVALID, naming the field, before it connects.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		change func(*postgres.Config)
		says   string
	}{
		{func(c *postgres.Config) { c.URL = "" }, "URL is empty"},
		{func(c *postgres.Config) { c.MaxConns = 0 }, "MaxConns must be at least 1, got 0"},
		{func(c *postgres.Config) { c.ConnectTimeout = 0 }, "ConnectTimeout must be positive, got 0s"},
	} {
		cfg := postgres.DefaultConfig()
		cfg.URL = "postgres://postgres@127.0.0.1:1/nqueens?sslmode=disable"
		tt.change(&cfg)
		_, err := postgres.Open(t.Context(), cfg)
		if nqueens.ErrorCode(err) != nqueens.EINVALID || !strings.Contains(err.Error(), "postgres: "+tt.says) {
			t.Errorf("Open: %v; want EINVALID saying %q", err, tt.says)
		}
	}
}

// TestPoolSettings: the pool takes MaxConns and ConnectTimeout from the
// configuration (DefaultConfig's unless changed), and from the URL when
// it sets pool_max_conns or connect_timeout, which win.
func TestPoolSettings(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	def := postgres.DefaultConfig()
	for _, tt := range []struct {
		url      string
		change   func(*postgres.Config)
		maxConns int32
		connect  time.Duration
	}{
		{u, nil, def.MaxConns, def.ConnectTimeout},
		{u, func(c *postgres.Config) { c.MaxConns, c.ConnectTimeout = 7, time.Second }, 7, time.Second},
		{u + "&pool_max_conns=3&connect_timeout=9", func(c *postgres.Config) { c.MaxConns = 7 }, 3, 9 * time.Second},
	} {
		var opts []func(*postgres.Config)
		if tt.change != nil {
			opts = append(opts, tt.change)
		}
		pc := pgtest.Open(t, tt.url, opts...).Pool().Config()
		if pc.MaxConns != tt.maxConns || pc.ConnConfig.ConnectTimeout != tt.connect {
			t.Errorf("%s: pool of %d, connect timeout %s; want %d, %s", tt.url, pc.MaxConns, pc.ConnConfig.ConnectTimeout, tt.maxConns, tt.connect)
		}
	}
}
