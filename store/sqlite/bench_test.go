package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/storetest"
)

// The benchmarks behind docs/PERFORMANCE.md ("Store"); run them with
// -benchtime=1x.

// BenchmarkStoredBytesN14 loads N=14 (365,596 solutions) into a new file
// and reports the bytes per stored solution: of the solutions table and
// its partial index (dbstat), and of the whole file after a checkpoint.
// Also the load rate and the time of a page of 100 from the middle.
func BenchmarkStoredBytesN14(b *testing.B) {
	const n = 14
	chunks, err := storetest.ComputeChunks(n, solver.DefaultChunkDepth(n))
	if err != nil {
		b.Fatal(err)
	}
	total := storetest.Solutions(chunks)
	var tableBytes, fileBytes int64
	var elapsed, page time.Duration
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "nqueens.db")
		cfg := sqlite.DefaultConfig()
		cfg.Path = path
		s, err := sqlite.Open(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		storetest.LoadComputed(b, s, chunks)
		elapsed = time.Since(start)
		page = pageTime(b, s, n)
		s.Close()
		tableBytes, fileBytes = sizes(b, path)
	}
	b.ReportMetric(float64(tableBytes)/float64(total), "B/solution")
	b.ReportMetric(float64(fileBytes)/float64(total), "file-B/solution")
	b.ReportMetric(float64(total)/elapsed.Seconds(), "solutions/s")
	b.ReportMetric(float64(page.Microseconds()), "µs/middle-page")
}

// pageTime is the best of 200 reads of the page of 100 (limit 101) after
// the middle solution.
func pageTime(b *testing.B, s store.Reader, n int) time.Duration {
	b.Helper()
	ctx := context.Background()
	board, err := s.Board(ctx, n)
	if err != nil {
		b.Fatal(err)
	}
	middle, err := s.SolutionAt(ctx, n, board.Counts.Total/2, false)
	if err != nil {
		b.Fatal(err)
	}
	best := time.Hour
	for range 200 {
		start := time.Now()
		if page, err := s.Page(ctx, store.PageRequest{N: n, Cursor: middle.Placement, Limit: 101}); err != nil || len(page) != 101 {
			b.Fatalf("page after the middle: %d solutions, %v", len(page), err)
		}
		best = min(best, time.Since(start))
	}
	return best
}

// sizes checkpoints the WAL into the file and returns the bytes of the
// solutions table and its index (dbstat) and of the whole file.
func sizes(b *testing.B, path string) (table, file int64) {
	b.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	if err := db.QueryRow(`SELECT sum(pgsize) FROM dbstat WHERE name IN ('solutions', 'solutions_canonical')`).Scan(&table); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return table, st.Size()
}
