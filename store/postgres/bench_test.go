package postgres_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// The benchmarks behind docs/PERFORMANCE.md ("Store"). Those on N=16 load
// 14.7 million solutions (minutes) and run only with NQUEENS_BENCH_N16=1;
// run them with -benchtime=1x (see docs/PERFORMANCE.md for the commands).

func requireN16(b *testing.B) {
	if os.Getenv("NQUEENS_BENCH_N16") != "1" {
		b.Skip("set NQUEENS_BENCH_N16=1 to run the N=16 benchmarks (minutes each)")
	}
}

// computed caches the enumerated chunks of a board for all benchmarks of
// the process.
var computed = struct {
	sync.Mutex
	chunks map[int][]storetest.ComputedChunk
}{chunks: map[int][]storetest.ComputedChunk{}}

func computedChunks(b *testing.B, n int) []storetest.ComputedChunk {
	b.Helper()
	computed.Lock()
	defer computed.Unlock()
	if c, ok := computed.chunks[n]; ok {
		return c
	}
	c, err := storetest.ComputeChunks(n, solver.DefaultChunkDepth(n))
	if err != nil {
		b.Fatal(err)
	}
	computed.chunks[n] = c
	return c
}

// BenchmarkLoadN16 loads all solutions of N=16 into an empty schema twice
// per iteration: through the store (WriteChunk per chunk: COPY, chunk row,
// board progress, one transaction each), and by Postgres's own COPY of the
// same rows from a file on the server (text format, written beforehand).
// The solutions are enumerated before the clock starts, so both time the
// database write alone; the store's time includes classifying each row
// (canonical, orbit size). Reports both rates and their ratio.
func BenchmarkLoadN16(b *testing.B) {
	requireN16(b)
	chunks := computedChunks(b, 16)
	total := storetest.Solutions(chunks)
	file := copyFile(b, chunks)
	var storeTime, rawTime time.Duration
	i := 0
	for b.Loop() {
		// Alternate which goes first, so neither always meets a warmer server.
		for k := range 2 {
			if (i+k)%2 == 0 {
				storeTime += timeStoreLoad(b, chunks)
			} else {
				rawTime += timeRawCopy(b, file, total)
			}
		}
		i++
	}
	storeRate := float64(total*i) / storeTime.Seconds()
	rawRate := float64(total*i) / rawTime.Seconds()
	b.ReportMetric(storeRate, "store-solutions/s")
	b.ReportMetric(rawRate, "rawCOPY-solutions/s")
	b.ReportMetric(storeRate/rawRate, "ratio")
}

func timeStoreLoad(b *testing.B, chunks []storetest.ComputedChunk) time.Duration {
	b.Helper()
	s := pgtest.OpenSchema(b)
	start := time.Now()
	storetest.LoadComputed(b, s, chunks)
	return time.Since(start)
}

func timeRawCopy(b *testing.B, file string, total int) time.Duration {
	b.Helper()
	ctx := context.Background()
	u, _ := pgtest.Schema(b)
	pgtest.Open(b, u).Close() // the same migrated, empty schema
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	tag, err := conn.Exec(ctx, `COPY solutions (n, orbit_size, canonical, placement) FROM '`+file+`'`)
	elapsed := time.Since(start)
	if err != nil {
		b.Fatalf("server-side COPY (needs a superuser or pg_read_server_files): %v", err)
	}
	if tag.RowsAffected() != int64(total) {
		b.Fatalf("COPY loaded %d rows, want %d", tag.RowsAffected(), total)
	}
	return elapsed
}

// copyFile writes the rows in COPY text format to a file the server can
// read (world-readable, in the temporary directory), once per process.
func copyFile(b *testing.B, chunks []storetest.ComputedChunk) string {
	b.Helper()
	f, err := os.CreateTemp("", "nqueens-bench-*.copy")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.Remove(f.Name()) })
	if err := f.Chmod(0o644); err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	p := make(solver.Placement, chunks[0].Chunk.N)
	for key := range storetest.Rows(chunks) {
		for i, c := range key {
			p[i] = int(c)
		}
		canonical := "f"
		if solver.IsCanonical(p) {
			canonical = "t"
		}
		fmt.Fprintf(w, "%d\t%d\t%s\t\\\\x%s\n", len(p), solver.OrbitSize(p), canonical, hex.EncodeToString(key))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	abs, err := filepath.Abs(f.Name())
	if err != nil {
		b.Fatal(err)
	}
	return abs
}

// BenchmarkStoredBytesN14 loads N=14 (365,596 solutions) into an empty
// schema, vacuums, and reports the bytes per stored solution of the
// solutions table with its indexes (pg_total_relation_size / rows), and of
// each part. "ordered" writes the chunks in order; "shuffled" in a random
// order, as parallel workers could; "shuffled-reindexed" then rebuilds the
// indexes.
func BenchmarkStoredBytesN14(b *testing.B) {
	chunks := computedChunks(b, 14)
	total := float64(storetest.Solutions(chunks))
	for _, variant := range []string{"ordered", "shuffled", "shuffled-reindexed"} {
		b.Run(variant, func(b *testing.B) {
			ordered := append([]storetest.ComputedChunk(nil), chunks...)
			if variant != "ordered" {
				rand.New(rand.NewPCG(14, 14)).Shuffle(len(ordered), func(i, j int) { ordered[i], ordered[j] = ordered[j], ordered[i] })
			}
			var sizes [4]int64
			var elapsed time.Duration
			for b.Loop() {
				u, _ := pgtest.Schema(b)
				s := pgtest.Open(b, u)
				start := time.Now()
				storetest.LoadComputed(b, s, ordered)
				elapsed = time.Since(start)
				s.Close()
				sizes = relationSizes(b, u, variant == "shuffled-reindexed")
			}
			b.ReportMetric(float64(sizes[0])/total, "B/solution")
			b.ReportMetric(float64(sizes[1])/total, "heap-B/solution")
			b.ReportMetric(float64(sizes[2])/total, "pkey-B/solution")
			b.ReportMetric(float64(sizes[3])/total, "canonical-B/solution")
			b.ReportMetric(total/elapsed.Seconds(), "solutions/s")
		})
	}
}

// relationSizes vacuums solutions (after rebuilding its indexes, when
// reindex) and returns its total size (table, indexes, free space and
// visibility maps) and those of the heap, the primary key and the partial
// index.
func relationSizes(b *testing.B, u string, reindex bool) [4]int64 {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if reindex {
		if _, err := conn.Exec(ctx, `REINDEX TABLE CONCURRENTLY solutions`); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) solutions`); err != nil {
		b.Fatal(err)
	}
	var s [4]int64
	if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('solutions'), pg_table_size('solutions'),
		pg_relation_size('solutions_pkey'), pg_relation_size('solutions_canonical')`).Scan(&s[0], &s[1], &s[2], &s[3]); err != nil {
		b.Fatal(err)
	}
	return s
}

// n16 is a schema holding N=16, loaded once per process for the page
// benchmarks and dropped by TestMain.
var n16 struct {
	once  sync.Once
	store *postgres.Store
	url   string // the schema's
	drop  func(context.Context) error
}

func loadedN16(b *testing.B) *postgres.Store {
	b.Helper()
	n16.once.Do(func() {
		chunks := computedChunks(b, 16)
		u, _, drop, err := pgtest.NewSchema(context.Background(), pgtest.ServerURL(b))
		if err != nil {
			b.Fatal(err)
		}
		n16.drop, n16.url = drop, u
		cfg := postgres.DefaultConfig()
		cfg.URL = u
		s, err := postgres.Open(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		storetest.LoadComputed(b, s, chunks)
		conn, err := pgx.Connect(context.Background(), u)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(context.Background())
		// As autovacuum would after a load: statistics and visibility map.
		if _, err := conn.Exec(context.Background(), `VACUUM (ANALYZE) solutions`); err != nil {
			b.Fatal(err)
		}
		n16.store = s
	})
	if n16.store == nil {
		b.Fatal("loading N=16 failed in an earlier benchmark")
	}
	return n16.store
}

func TestMain(m *testing.M) {
	code := m.Run()
	if n16.drop != nil {
		n16.store.Close()
		if err := n16.drop(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// BenchmarkPageN16 reads a page of 100 solutions of N=16 (a Page call of
// limit 101, as the API asks one more to know whether more exist) at the
// start, the middle and the end of the board, all and unique, warm.
func BenchmarkPageN16(b *testing.B) {
	requireN16(b)
	s := loadedN16(b)
	ctx := context.Background()
	board, err := s.Board(ctx, 16)
	if err != nil {
		b.Fatal(err)
	}
	for _, unique := range []bool{false, true} {
		total := board.Counts.Total
		kind := "all"
		if unique {
			total, kind = board.Counts.Unique, "unique"
		}
		middle, err := s.SolutionAt(ctx, 16, total/2, unique)
		if err != nil {
			b.Fatal(err)
		}
		for _, at := range []struct {
			name string
			req  store.PageRequest
		}{
			{"first", store.PageRequest{N: 16, Unique: unique, Limit: 101}},
			{"middle", store.PageRequest{N: 16, Unique: unique, Cursor: middle.Placement, Limit: 101}},
			{"last", store.PageRequest{N: 16, Unique: unique, Direction: store.Backward, Limit: 101}},
		} {
			b.Run(kind+"/"+at.name, func(b *testing.B) {
				for range 200 { // warm the caches and the connections
					if _, err := s.Page(ctx, at.req); err != nil {
						b.Fatal(err)
					}
				}
				for b.Loop() {
					if page, err := s.Page(ctx, at.req); err != nil || len(page) != 101 {
						b.Fatalf("page: %d solutions, %v", len(page), err)
					}
				}
			})
		}
	}
}

// BenchmarkRankN16 jumps to solution #k of N=16 and back: SolutionAt and
// Rank of the middle solution, all and unique (prefix sums, then an offset
// or a count within one chunk).
func BenchmarkRankN16(b *testing.B) {
	requireN16(b)
	s := loadedN16(b)
	ctx := context.Background()
	board, err := s.Board(ctx, 16)
	if err != nil {
		b.Fatal(err)
	}
	for _, unique := range []bool{false, true} {
		rank, kind := board.Counts.Total/2, "all"
		if unique {
			rank, kind = board.Counts.Unique/2, "unique"
		}
		middle, err := s.SolutionAt(ctx, 16, rank, unique)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(kind+"/SolutionAt", func(b *testing.B) {
			for b.Loop() {
				if _, err := s.SolutionAt(ctx, 16, rank, unique); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/Rank", func(b *testing.B) {
			for b.Loop() {
				if got, err := s.Rank(ctx, 16, middle.Placement, unique); err != nil || got != rank {
					b.Fatalf("Rank = %d, %v; want %d", got, err, rank)
				}
			}
		})
	}
}
