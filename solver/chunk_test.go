package solver_test

import (
	"slices"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

func TestChunksConcatenateToTheEnumeration(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for n := 1; n <= 10; n++ {
		all := collect(solver.All(n))
		for depth := 0; depth <= 3; depth++ {
			chunks, err := solver.Chunks(n, depth)
			if err != nil {
				t.Fatal(err)
			}
			var joined []solver.Placement
			var sum solver.Counts
			for i, c := range chunks {
				if err := c.Validate(); err != nil {
					t.Fatalf("N=%d depth %d: chunk %v: %v", n, depth, c, err)
				}
				if i > 0 && chunks[i-1].Prefix.Compare(c.Prefix) >= 0 {
					t.Fatalf("N=%d depth %d: chunks out of order at %v", n, depth, c)
				}
				part := collect(c.Solutions())
				counts := c.Count()
				if counts.Total != uint64(len(part)) {
					t.Fatalf("N=%d %v: Count says %d, Solutions gave %d", n, c, counts.Total, len(part))
				}
				joined = append(joined, part...)
				sum.Add(counts)
			}
			if !slices.EqualFunc(joined, all, slices.Equal) {
				t.Fatalf("N=%d depth %d: chunks do not concatenate to All", n, depth)
			}
			if sum.Total != ref[n].Total || sum.Unique != ref[n].Unique {
				t.Errorf("N=%d depth %d: chunk counts sum to %+v, want total %d unique %d", n, depth, sum, ref[n].Total, ref[n].Unique)
			}
			if err := sum.Check(); err != nil {
				t.Errorf("N=%d depth %d: %v", n, depth, err)
			}
		}
	}
}

func TestChunkValidateRejectsBadPrefixes(t *testing.T) {
	t.Parallel()
	for _, c := range []solver.Chunk{
		{N: 8, Prefix: solver.Placement{0, 1}},          // diagonal
		{N: 8, Prefix: solver.Placement{3, 3}},          // column
		{N: 8, Prefix: solver.Placement{8}},             // off the board
		{N: 4, Prefix: solver.Placement{1, 3, 0, 2, 1}}, // too long
		{N: 0},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%v: no error", c)
		}
	}
}
