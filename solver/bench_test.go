package solver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// Counting total and unique on one core, then on every core. The result is
// checked, so a fast wrong counter fails the benchmark.
func BenchmarkCount(b *testing.B) {
	ref := oeis.MustLoad(b)
	for _, n := range []int{14, 15, 16} {
		for _, workers := range []int{1, 0} {
			b.Run(fmt.Sprintf("N=%d/workers=%d", n, workers), func(b *testing.B) {
				for b.Loop() {
					c, err := solver.Count(context.Background(), n, solver.CountOptions{Workers: workers})
					if err != nil || c.Total != ref[n].Total || c.Unique != ref[n].Unique {
						b.Fatalf("N=%d: %+v, %v", n, c, err)
					}
				}
			})
		}
	}
}

// The ordered enumeration that fills the store and pages unstored boards.
func BenchmarkEnumerate(b *testing.B) {
	for _, n := range []int{12, 14} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var count int
			for b.Loop() {
				count = 0
				for range solver.All(n) {
					count++
				}
			}
			b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "solutions/s")
		})
	}
}

// The cost of one cursor page deep inside a board: it must not grow with
// the depth of the cursor.
func BenchmarkAfterDeep(b *testing.B) {
	for _, n := range []int{16, 24} {
		// A solution far from the start: the constructed one, and the last.
		mid, err := solver.Solve(n)
		if err != nil {
			b.Fatal(err)
		}
		last, err := solver.Before(n, nil, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name   string
			cursor solver.Placement
		}{{"start", nil}, {"middle", mid}, {"end", last[0]}} {
			b.Run(fmt.Sprintf("N=%d/%s/page=100", n, c.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := solver.After(n, c.cursor, 100); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("N=%d/%s/unique/page=100", n, c.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := solver.UniqueAfter(n, c.cursor, 100); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// Counting every solution of the chunks of N=14, as a chunk job does.
func BenchmarkChunkCount(b *testing.B) {
	chunks, err := solver.Chunks(14, solver.DefaultChunkDepth(14))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, c := range chunks {
			c.Count()
		}
	}
}
