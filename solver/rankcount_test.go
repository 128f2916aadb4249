package solver_test

import (
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// TestRankChunkCounts checks each chunk of a rank index, counted as the
// precompute counts it (the zero filter), against the chunk's own listing
// classified solution by solution, and their sum against the published
// counts.
func TestRankChunkCounts(t *testing.T) {
	t.Parallel()
	table := oeis.MustLoad(t)
	for n := 1; n <= 13; n++ {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			t.Parallel()
			chunks, err := solver.Chunks(n, solver.RankChunkDepth(n))
			if err != nil {
				t.Fatal(err)
			}
			var sum solver.Counts
			for _, c := range chunks {
				got, want := c.CountFiltered(solver.Filter{}), c.Count()
				if got != want {
					t.Fatalf("%v: %+v, its listing %+v", c, got, want)
				}
				sum.Add(got)
			}
			want := table[n]
			if sum.Total != want.Total || sum.Unique != want.Unique || sum.Orbit2 != want.Orbit2 || sum.Orbit4 != want.Orbit4 || sum.Orbit8 != want.Orbit8 {
				t.Fatalf("the chunks sum to %+v, published %+v", sum, want)
			}
		})
	}
}
