package postgres_test

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestBackupWhileWriting backs the database up as the README tells an
// operator to while serve and the workers run: pg_dump, taken while a
// chunk's transaction is open. pg_restore brings it back into a new
// database; there the board is as the chunks committed before the dump
// left it, not the one in flight, and it finishes from there.
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	pgDump, pgRestore := postgresTool(t, "pg_dump"), postgresTool(t, "pg_restore")
	ctx := t.Context()
	serverURL := pgtest.ServerURL(t)
	schemaURL, schema := pgtest.Schema(t)
	s := pgtest.Open(t, schemaURL)
	const n, depth, before = 10, 2, 20
	if _, _, err := s.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: depth, StoresSolutions: true, SolverVersion: storetest.SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "nqueens.dump")
	var committed uint64
	for i, c := range chunks {
		var during store.TxFunc[pgx.Tx]
		if i == before {
			during = func(context.Context, pgx.Tx) error {
				return run(t, pgDump, "--format=custom", "--schema="+schema, "--file="+dump, "--dbname="+serverURL)
			}
		}
		if i < before {
			committed += c.Count().Total
		}
		if _, err := s.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, during); err != nil {
			t.Fatal(err)
		}
	}

	restored := newDatabase(t, serverURL)
	if err := run(t, pgRestore, "--no-owner", "--dbname="+restored, dump); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(restored)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	cp := pgtest.Open(t, u.String())
	b, err := cp.Board(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	var rows uint64
	if err := cp.Pool().QueryRow(ctx, "SELECT count(*) FROM solutions WHERE n = $1", n).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if b.State != store.Running || b.ChunksDone != before || b.SolutionsDone != committed || rows != committed {
		t.Fatalf("restored from a dump taken during chunk %d's write: %s with %d chunks, %d solutions, %d rows; want running with the %d chunks and %d solutions committed before",
			before, b.State, b.ChunksDone, b.SolutionsDone, rows, before, committed)
	}
	for _, c := range chunks[before:] {
		if _, err := cp.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if b, err = cp.FinishBoard(ctx, n); err != nil {
		t.Fatal(err)
	}
	boardtest.CheckCounts(t, b)
	boardtest.CheckStored(t, cp, n)
}

// postgresTool finds a client program of Postgres; without it the test
// skips, or fails where Postgres is required (CI).
func postgresTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("NQUEENS_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("NQUEENS_REQUIRE_POSTGRES=1 but %s is not installed", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}

// run runs a program and returns an error with its output if it fails.
func run(t *testing.T, name string, args ...string) error {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		return err
	}
	return nil
}

// newDatabase creates an empty database on the test server, dropped when
// the test ends, and returns its URL.
func newDatabase(t *testing.T, serverURL string) string {
	t.Helper()
	name := pgx.Identifier{"nqt_restore_" + strings.ToLower(rand.Text()[:12])}.Sanitize()
	conn, err := pgx.Connect(t.Context(), serverURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), serverURL)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + strings.Trim(name, `"`)
	return u.String()
}
