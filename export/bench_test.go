package export_test

import (
	"bytes"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// The benchmarks behind docs/PERFORMANCE.md ("Export"): N=14 (365,596
// solutions) as CSV, from each store and from the solver, into a writer
// that counts lines (the benchmark fails unless it counts the header and
// every solution).
//
//	go test -run XXX -bench CSVN14 -benchtime 5x -count 3 ./export/

const n14 = 14

func BenchmarkCSVN14SQLite(b *testing.B) {
	st := sqlitetest.OpenTemp(b)
	storetest.Load(b.Context(), b, st, n14, solver.DefaultChunkDepth(n14))
	benchmarkCSV(b, st)
}

func BenchmarkCSVN14Postgres(b *testing.B) {
	st := pgtest.OpenSchema(b)
	storetest.Load(b.Context(), b, st, n14, solver.DefaultChunkDepth(n14))
	benchmarkCSV(b, st)
}

func BenchmarkCSVN14Solver(b *testing.B) { benchmarkCSV(b, nil) }

func benchmarkCSV(b *testing.B, st export.Store) {
	const total = 365_596
	e, err := export.Plan(b.Context(), st, export.Request{N: n14, Format: export.CSV}, n14)
	if err != nil {
		b.Fatal(err)
	}
	var lines lineCounter
	cpu := cpuTime(b)
	for b.Loop() {
		lines = 0
		if _, err := e.WriteTo(b.Context(), &lines); err != nil {
			b.Fatal(err)
		}
		if lines != total+1 {
			b.Fatalf("%d lines, want a header and %d solutions", lines, total)
		}
	}
	b.ReportMetric(float64(total*b.N)/b.Elapsed().Seconds(), "solutions/s")
	// The same per second of this process's CPU: what the export costs
	// whatever else the machine runs (Postgres's own work not included).
	b.ReportMetric(float64(total*b.N)/(cpuTime(b)-cpu).Seconds(), "solutions/cpu-s")
}

// The Parquet export of N=14, from SQLite and from the solver: its speed,
// and its bytes per solution (docs/PERFORMANCE.md, "Export: Parquet").
//
//	go test -run XXX -bench ParquetN14 -benchtime 5x -count 3 ./export/

func BenchmarkParquetN14SQLite(b *testing.B) {
	st := sqlitetest.OpenTemp(b)
	storetest.Load(b.Context(), b, st, n14, solver.DefaultChunkDepth(n14))
	benchmarkParquet(b, st)
}

func BenchmarkParquetN14Solver(b *testing.B) { benchmarkParquet(b, nil) }

func benchmarkParquet(b *testing.B, st export.Store) {
	const total = 365_596
	e, err := export.Plan(b.Context(), st, export.Request{N: n14, Format: export.Parquet}, n14)
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	cpu := cpuTime(b)
	for b.Loop() {
		out.Reset()
		if k, err := e.WriteTo(b.Context(), &out); err != nil || k != total {
			b.Fatalf("%d solutions, %v; want %d", k, err, total)
		}
	}
	b.ReportMetric(float64(total*b.N)/b.Elapsed().Seconds(), "solutions/s")
	b.ReportMetric(float64(total*b.N)/(cpuTime(b)-cpu).Seconds(), "solutions/cpu-s")
	b.ReportMetric(float64(out.Len())/total, "bytes/solution")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// lineCounter counts the lines written to it.
type lineCounter int

func (c *lineCounter) Write(p []byte) (int, error) {
	*c += lineCounter(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}
