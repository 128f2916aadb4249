package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// newTestDatabase is a file of the test's own, in its temporary directory.
func newTestDatabase(t *testing.T) storetest.Database[*sql.Tx] {
	path := filepath.Join(t.TempDir(), "nqueens.db")
	return storetest.Database[*sql.Tx]{
		Open: func(t *testing.T, skipMigrations bool) store.Store[*sql.Tx] {
			return sqlitetest.Open(t, path, func(c *sqlite.Config) { c.SkipMigrations = skipMigrations })
		},
		Migrator: func(t *testing.T) *migrations.Migrator {
			m, err := sqlite.NewMigrator(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			return m
		},
		MarkDirty: func(t *testing.T) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("UPDATE schema_migrations SET dirty = 1"); err != nil {
				t.Fatal(err)
			}
		},
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Backend[*sql.Tx]{Dialect: migrations.SQLite, NewDatabase: newTestDatabase})
}

// TestWriteChunkInTx checks that inTx gets the *sql.Tx of the chunk's own
// writes: it sees the chunk done before the commit.
func TestWriteChunkInTx(t *testing.T) {
	t.Parallel()
	s := sqlitetest.OpenTemp(t)
	ctx := t.Context()
	if _, _, err := s.PlanBoard(ctx, store.BoardPlan{N: 6, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "test"}, nil); err != nil {
		t.Fatal(err)
	}
	c := solver.Chunk{N: 6, Prefix: solver.Placement{1}}
	_, err := s.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, func(ctx context.Context, sqltx *sql.Tx) error {
		var done bool
		var rows int
		err := sqltx.QueryRowContext(ctx, `SELECT done_at IS NOT NULL, (SELECT count(*) FROM solutions WHERE n = 6)
			FROM chunks WHERE n = 6 AND prefix = X'01'`).Scan(&done, &rows)
		if err == nil && (!done || rows != 1) {
			err = fmt.Errorf("inside the transaction: chunk done %t, %d rows; want done and its one solution", done, rows)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLockedIsUnavailable holds the write lock from another connection:
// a write that cannot get it within the busy timeout is EUNAVAILABLE,
// while reads go on. A busy timeout of 0 gives up at once.
func TestLockedIsUnavailable(t *testing.T) {
	t.Parallel()
	for _, busy := range []time.Duration{50 * time.Millisecond, 0} {
		t.Run(busy.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "nqueens.db")
			s := sqlitetest.Open(t, path, func(c *sqlite.Config) { c.BusyTimeout = busy })
			storetest.Load(t.Context(), t, s, 5, 1)

			other, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			conn, err := other.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(context.Background(), "ROLLBACK")

			start := time.Now()
			_, _, err = s.RequestBoard(t.Context(), store.BoardRequest{N: 6})
			if code := nqueens.ErrorCode(err); code != nqueens.EUNAVAILABLE {
				t.Errorf("a write while another process holds the lock: %q (%v), want %q", code, err, nqueens.EUNAVAILABLE)
			}
			// Far below the default busy timeout (5 s), which a zero
			// taken for "the default" would wait.
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("a write with busy timeout %s gave up after %s", busy, took)
			}
			if _, err := s.Page(t.Context(), store.PageRequest{N: 5, Limit: 3}); err != nil {
				t.Errorf("a read while another process holds the write lock: %v", err)
			}
		})
	}
}

// TestConfigRefused: Open refuses a configuration it cannot work with,
// EINVALID, naming the field; the defaults with a path open.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		change func(*sqlite.Config)
		says   string
	}{
		{func(c *sqlite.Config) { c.Path = "" }, "Path is empty"},
		{func(c *sqlite.Config) { c.ReadConns = 0 }, "ReadConns must be at least 1, got 0"},
		{func(c *sqlite.Config) { c.BusyTimeout = -time.Second }, "BusyTimeout must not be negative, got -1s"},
	} {
		cfg := sqlite.DefaultConfig()
		cfg.Path = filepath.Join(t.TempDir(), "nqueens.db")
		tt.change(&cfg)
		_, err := sqlite.Open(t.Context(), cfg)
		if nqueens.ErrorCode(err) != nqueens.EINVALID || !strings.Contains(err.Error(), "sqlite: "+tt.says) {
			t.Errorf("Open: %v; want EINVALID saying %q", err, tt.says)
		}
	}
	// DefaultConfig with a path is what the commands open.
	sqlitetest.Open(t, filepath.Join(t.TempDir(), "nqueens.db"))
}

// TestUnopenable checks that a file that cannot be created is EUNAVAILABLE.
func TestUnopenable(t *testing.T) {
	t.Parallel()
	cfg := sqlite.DefaultConfig()
	cfg.Path = filepath.Join(t.TempDir(), "missing", "dir", "nqueens.db")
	_, err := sqlite.Open(t.Context(), cfg)
	if code := nqueens.ErrorCode(err); code != nqueens.EUNAVAILABLE {
		t.Errorf("Open in a missing directory: %q (%v), want %q", code, err, nqueens.EUNAVAILABLE)
	}
}
