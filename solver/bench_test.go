package solver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// The benchmarks behind docs/PERFORMANCE.md ("Solver"). Each checks what
// it timed (the counts, the number of solutions, a full page), so that a
// fast wrong answer, or a page with nothing in it, fails instead of
// timing nothing.

// Counting total and unique on one core, then on every core.
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

// Counting N=17 on one worker: the figure docs/PERFORMANCE.md compares
// with NQueensFAF's CPU solver (run it with GOMAXPROCS=1 and taskset to
// keep it to one core).
func BenchmarkCountOneCore(b *testing.B) {
	ref := oeis.MustLoad(b)
	const n = 17
	b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
		for b.Loop() {
			c, err := solver.Count(context.Background(), n, solver.CountOptions{Workers: 1})
			if err != nil || c.Total != ref[n].Total || c.Unique != ref[n].Unique || c.Orbit2 != ref[n].Orbit2 || c.Orbit4 != ref[n].Orbit4 {
				b.Fatalf("N=%d: %+v, %v", n, c, err)
			}
		}
	})
}

// The ordered enumeration that fills the store and pages unstored boards.
func BenchmarkEnumerate(b *testing.B) {
	ref := oeis.MustLoad(b)
	for _, n := range []int{12, 14} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				var count uint64
				for range solver.All(n) {
					count++
				}
				if count != ref[n].Total {
					b.Fatalf("N=%d: %d solutions, want %d", n, count, ref[n].Total)
				}
			}
			b.ReportMetric(float64(ref[n].Total)*float64(b.N)/b.Elapsed().Seconds(), "solutions/s")
		})
	}
}

// pageCursors are the cursors of BenchmarkAfterDeep: the start; the
// constructed solution (somewhere inside the listing), or for canonical
// solutions its class's canonical member; and the first solution of the
// listing's last block, those whose first queen is in the last column a
// listing has in its first row (N-1, or the middle one for canonical
// solutions). The last page itself is not found fast enough for canonical
// solutions of N=24: backward, the search tries every first row's
// canonical candidates from the end (over 20 s).
func pageCursors(b *testing.B, n int, unique bool) map[string]solver.Placement {
	b.Helper()
	inside, err := solver.Solve(n)
	if err != nil {
		b.Fatal(err)
	}
	lastColumn := n - 1
	if unique {
		inside, lastColumn = solver.Canonical(inside), (n-1)/2
	}
	end, err := solver.Page(context.Background(), solver.PageQuery{N: n, Cursor: solver.Placement{lastColumn}, Limit: 1, Unique: unique})
	if err != nil || len(end) != 1 || end[0][0] != lastColumn {
		b.Fatalf("N=%d unique=%v: the first solution of the last block: %v, %v", n, unique, end, err)
	}
	return map[string]solver.Placement{"start": nil, "middle": inside, "end": end[0]}
}

// The cost of one page of 100 after a cursor: the search from the cursor
// to the next solutions, whatever the cursor's depth. Every page timed
// holds 100 solutions.
func BenchmarkAfterDeep(b *testing.B) {
	for _, n := range []int{16, 24} {
		for _, unique := range []bool{false, true} {
			kind := ""
			if unique {
				kind = "unique/"
			}
			cursors := pageCursors(b, n, unique)
			for _, at := range []string{"start", "middle", "end"} {
				q := solver.PageQuery{N: n, Cursor: cursors[at], Limit: 100, Unique: unique}
				b.Run(fmt.Sprintf("N=%d/%s/%spage=100", n, at, kind), func(b *testing.B) {
					for b.Loop() {
						page, err := solver.Page(context.Background(), q)
						if err != nil || len(page) != 100 {
							b.Fatalf("page after %v: %d solutions, %v", q.Cursor, len(page), err)
						}
					}
				})
			}
		}
	}
}

// Counting every solution of the chunks of N=14, as a chunk job does.
func BenchmarkChunkCount(b *testing.B) {
	ref := oeis.MustLoad(b)
	const n = 14
	chunks, err := solver.Chunks(n, solver.DefaultChunkDepth(n))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var sum solver.Counts
		for _, c := range chunks {
			sum.Add(c.Count())
		}
		if sum.Total != ref[n].Total || sum.Unique != ref[n].Unique {
			b.Fatalf("N=%d: the chunks count %+v", n, sum)
		}
	}
}

// The price of the statistics in the precompute's write path, per
// solution of N=14 listed beforehand: tallying its squares (the per-row
// column histogram, what store/internal/chunkrows adds for each row)
// against classifying it (canonical, orbit size), which the path did
// already.
func BenchmarkSquareCounts(b *testing.B) {
	const n = 14
	var all []solver.Placement
	var canonical []bool
	for p := range solver.All(n) {
		all = append(all, p.Clone())
		canonical = append(canonical, solver.IsCanonical(p))
	}
	if want := oeis.MustLoad(b)[n].Total; uint64(len(all)) != want {
		b.Fatalf("%d solutions, want %d", len(all), want)
	}
	b.Run("N=14/classify", func(b *testing.B) {
		for b.Loop() {
			var counts solver.Counts
			for _, p := range all {
				counts.AddSolution(solver.IsCanonical(p), solver.OrbitSize(p))
			}
			if counts.Total != uint64(len(all)) {
				b.Fatal(counts)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(all)), "ns/solution")
	})
	b.Run("N=14/tally", func(b *testing.B) {
		for b.Loop() {
			s := solver.NewSquareCounts(n)
			for i, p := range all {
				s.AddSolution(p, canonical[i])
			}
			if err := s.Check(solver.Counts{Total: uint64(len(all)), Unique: oeis.MustLoad(b)[n].Unique}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(all)), "ns/solution")
	})
}

// twoPinned pins the queens of the constructed solution of N in rows N/3
// and 2N/3: a filter that some solutions match, with rows above either
// pin free, so that the search cannot start at a pinned row.
func twoPinned(b *testing.B, n int) solver.Filter {
	b.Helper()
	p, err := solver.Solve(n)
	if err != nil {
		b.Fatal(err)
	}
	return solver.Filter{Queens: []solver.Square{{Row: n / 3, Col: p[n/3]}, {Row: 2 * n / 3, Col: p[2*n/3]}}}
}

// Pages of 20 of N=16 with two pinned queens, all solutions and
// canonical ones: the first page; the page after the constructed solution
// (which matches, somewhere inside the listing; for canonical solutions
// its class's canonical member); the page after the 21st matching item
// from the end (the last full page, found beforehand); and the last page,
// searched backward from the end. Every page timed holds 20 items.
func BenchmarkFilteredPage(b *testing.B) {
	const n = 16
	f := twoPinned(b, n)
	middle, err := solver.Solve(n)
	if err != nil {
		b.Fatal(err)
	}
	for _, unique := range []bool{false, true} {
		kind, inside := "", middle
		if unique {
			kind, inside = "unique/", solver.Canonical(middle)
		}
		tail, err := solver.Page(context.Background(), solver.PageQuery{N: n, Limit: 21, Backward: true, Unique: unique, Filter: f})
		if err != nil || len(tail) != 21 {
			b.Fatalf("the last 21 items: %d, %v", len(tail), err)
		}
		for _, c := range []struct {
			name     string
			cursor   solver.Placement
			backward bool
		}{{"start", nil, false}, {"middle", inside, false}, {"end", tail[0], false}, {"last", nil, true}} {
			q := solver.PageQuery{N: n, Cursor: c.cursor, Limit: 20, Unique: unique, Filter: f, Backward: c.backward}
			b.Run(fmt.Sprintf("N=%d/pinned=2/%s%s/page=20", n, kind, c.name), func(b *testing.B) {
				for b.Loop() {
					page, err := solver.Page(context.Background(), q)
					if err != nil || len(page) != 20 {
						b.Fatalf("page next to %v: %d solutions, %v", q.Cursor, len(page), err)
					}
					if !unique && !f.Matches(page[0]) {
						b.Fatalf("%v does not match %q", page[0], f)
					}
				}
			})
		}
	}
}

// Counting N=18 with two pinned queens on one core (as the API counts,
// on one solver slot) and on every core: all and unique.
// The figures it checks are the sums of the filtered counts of its
// chunks, counted once beforehand one by one (and in the test suite
// against brute force for small N).
func BenchmarkCountFiltered(b *testing.B) {
	const n = 18
	f := twoPinned(b, n)
	chunks, err := solver.Chunks(n, solver.FilterChunkDepth(n))
	if err != nil {
		b.Fatal(err)
	}
	var want solver.Counts
	for _, c := range chunks {
		want.Add(c.CountFiltered(f))
	}
	if want.Total == 0 {
		b.Fatalf("filter %q matches nothing", f)
	}
	for _, workers := range []int{1, 0} {
		b.Run(fmt.Sprintf("N=%d/pinned=2/workers=%d", n, workers), func(b *testing.B) {
			for b.Loop() {
				got, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{Workers: workers})
				if err != nil || got != want {
					b.Fatalf("got %+v, %v; want %+v", got, err, want)
				}
			}
			b.ReportMetric(float64(want.Total), "solutions")
		})
	}
}

// BenchmarkSquareCountsFiltered tallies the squares of the solutions of
// N=16 with two pinned queens, beside CountFiltered on one worker (what a
// server's slot runs for count's total): the price of the heat map under
// a filter.
func BenchmarkSquareCountsFiltered(b *testing.B) {
	const n = 16
	f := twoPinned(b, n)
	want, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{Workers: 1})
	if err != nil || want.Total == 0 {
		b.Fatalf("filter %q: %+v, %v", f, want, err)
	}
	b.Run(fmt.Sprintf("N=%d/pinned=2/tally", n), func(b *testing.B) {
		for b.Loop() {
			s, got, err := solver.SquareCountsFiltered(context.Background(), n, f, solver.CountOptions{})
			if err != nil || got != want || s.Check(got) != nil {
				b.Fatalf("got %+v, %v; want %+v", got, err, want)
			}
		}
		b.ReportMetric(float64(want.Total), "solutions")
	})
	b.Run(fmt.Sprintf("N=%d/pinned=2/count", n), func(b *testing.B) {
		for b.Loop() {
			if got, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{Workers: 1}); err != nil || got != want {
				b.Fatalf("got %+v, %v; want %+v", got, err, want)
			}
		}
		b.ReportMetric(float64(want.Total), "solutions")
	})
}

// Walking whole chunks of a rank index (solver.RankChunkDepth), the most a
// solutionAt or a rank of a board that keeps counts only walks: eight
// chunks spread over the board, each walked to its end; the metrics are
// the slowest chunk's time and the mean number of solutions a chunk.
func BenchmarkRankChunkWalk(b *testing.B) {
	for _, n := range []int{17, 19} {
		chunks, err := solver.Chunks(n, solver.RankChunkDepth(n))
		if err != nil {
			b.Fatal(err)
		}
		var sample []solver.Chunk
		var want []solver.Counts
		for j := range 8 {
			c := chunks[(2*j+1)*len(chunks)/16]
			sample, want = append(sample, c), append(want, c.Count())
		}
		for _, unique := range []bool{false, true} {
			b.Run(fmt.Sprintf("N=%d/unique=%t", n, unique), func(b *testing.B) {
				var slowest time.Duration
				var items uint64
				for b.Loop() {
					items = 0
					for i, c := range sample {
						start := time.Now()
						var count uint64
						for range c.Walk(unique, nil) {
							count++
						}
						slowest = max(slowest, time.Since(start))
						if unique && count != want[i].Unique || !unique && count != want[i].Total {
							b.Fatalf("%v: walked %d, counts %+v", c, count, want[i])
						}
						items += count
					}
				}
				b.ReportMetric(float64(slowest.Microseconds())/1000, "ms-slowest-chunk")
				b.ReportMetric(float64(items)/float64(len(sample)), "items/chunk")
			})
		}
	}
}

// BenchmarkRankIndexChunks counts every chunk of N=14's rank index as a
// precompute job does (CountFiltered of the zero filter), beside the
// chunks' listings classified solution by solution (Chunk.Count): the
// cost of a counts-only board's rank index.
func BenchmarkRankIndexChunks(b *testing.B) {
	const n = 14
	chunks, err := solver.Chunks(n, solver.RankChunkDepth(n))
	if err != nil {
		b.Fatal(err)
	}
	for _, how := range []string{"rank-index", "listing"} {
		b.Run(fmt.Sprintf("N=%d/%s", n, how), func(b *testing.B) {
			for b.Loop() {
				var sum solver.Counts
				for _, c := range chunks {
					if how == "listing" {
						sum.Add(c.Count())
					} else {
						sum.Add(c.CountFiltered(solver.Filter{}))
					}
				}
				if sum.Total != 365596 {
					b.Fatalf("N=%d: %d solutions", n, sum.Total)
				}
			}
		})
	}
}
