package sqlite_test

import (
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestBackupWhileWriting backs the database file up as the README tells an
// operator to while serve runs: `VACUUM INTO` through a connection of its
// own (and the sqlite3 shell's `.backup`, where it is installed). The
// first copy is taken while a chunk's transaction is open, holding the
// write lock: it does not wait for the writer (WAL mode), and holds the
// chunks committed before, not the one in flight. The last, taken after
// the board is done, holds every solution; from the others, the board
// finishes.
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "nqueens.db")
	s := sqlitetest.Open(t, path)
	const n, depth, before = 10, 2, 20
	if _, _, err := s.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: depth, StoresSolutions: true, SolverVersion: storetest.SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		t.Fatal(err)
	}
	// A connection of the backup's own, as the sqlite3 shell would open.
	backup, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer backup.Close()

	var committed uint64 // solutions of the chunks written before the copy
	copies := map[string]bool{}
	for i, c := range chunks {
		var during store.TxFunc[*sql.Tx]
		if i == before {
			during = func(ctx context.Context, _ *sql.Tx) error {
				copies[vacuumInto(t, backup, filepath.Join(dir, "during.db"))] = false
				if shell := sqliteShellBackup(t, path, filepath.Join(dir, "during-shell.db")); shell != "" {
					copies[shell] = false
				}
				return nil
			}
		}
		if i < before {
			committed += c.Count().Total
		}
		if _, err := s.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, during); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.FinishBoard(ctx, n); err != nil {
		t.Fatal(err)
	}
	copies[vacuumInto(t, backup, filepath.Join(dir, "after.db"))] = true

	for copyPath, finished := range copies {
		var integrity string
		cp := sqlitetest.Open(t, copyPath)
		if err := cp.Writer().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
			t.Errorf("%s: integrity_check %q, %v", copyPath, integrity, err)
		}
		b, err := cp.Board(ctx, n)
		if err != nil {
			t.Fatalf("%s: %v", copyPath, err)
		}
		var rows uint64
		if err := cp.Writer().QueryRowContext(ctx, "SELECT count(*) FROM solutions WHERE n = ?", n).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if finished {
			boardtest.CheckCounts(t, b)
			boardtest.CheckStored(t, cp, n)
			continue
		}
		if b.State != store.Running || b.ChunksDone != before || b.SolutionsDone != committed || rows != committed {
			t.Errorf("%s, copied during chunk %d's write: %s with %d chunks, %d solutions, %d rows; want running with the %d chunks and %d solutions committed before",
				copyPath, before, b.State, b.ChunksDone, b.SolutionsDone, rows, before, committed)
			continue
		}
		// Restored, the board finishes from where the copy left it.
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
}

// vacuumInto copies the database db reads into a new file at to.
func vacuumInto(t *testing.T, db *sql.DB, to string) string {
	t.Helper()
	if _, err := db.Exec("VACUUM INTO ?", to); err != nil {
		t.Fatalf("VACUUM INTO %s: %v", to, err)
	}
	return to
}

// sqliteShellBackup copies the database at path with the sqlite3 shell's
// .backup into a new file at to, and returns it; "" where the shell is
// not installed.
func sqliteShellBackup(t *testing.T, path, to string) string {
	t.Helper()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Log("sqlite3 is not installed: .backup not tried")
		return ""
	}
	out, err := exec.Command(shell, path, ".backup '"+strings.ReplaceAll(to, "'", "''")+"'").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %s .backup: %v\n%s", path, err, out)
	}
	return to
}
