package solver_test

import (
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// bruteSquareCounts tallies the queens of every solution of N, found by
// trying every permutation, with canonical decided by the definition (the
// smallest of its images), not by IsCanonical.
func bruteSquareCounts(n int) (all, unique []uint64) {
	all, unique = make([]uint64, n*n), make([]uint64, n*n)
	p := make(solver.Placement, n)
	used := make([]bool, n)
	var place func(r int)
	place = func(r int) {
		if r == n {
			if solver.Validate(p) != nil {
				return
			}
			canonical := solver.Canonical(p).Compare(p) == 0
			for row, col := range p {
				all[row*n+col]++
				if canonical {
					unique[row*n+col]++
				}
			}
			return
		}
		for c := range n {
			if !used[c] {
				used[c], p[r] = true, c
				place(r + 1)
				used[c] = false
			}
		}
	}
	place(0)
	return all, unique
}

// TestSquareCountsBruteForce sums the chunks' statistics at several depths
// and compares them with a brute-force tally, then checks the sums of rows
// and columns against the published counts.
func TestSquareCountsBruteForce(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for n := 1; n <= 9; n++ {
		wantAll, wantUnique := bruteSquareCounts(n)
		for _, depth := range []int{0, 1, 2, n} {
			t.Run(fmt.Sprintf("N=%d/depth=%d", n, depth), func(t *testing.T) {
				chunks, err := solver.Chunks(n, depth)
				if err != nil {
					t.Fatal(err)
				}
				sum := solver.NewSquareCounts(n)
				var counts solver.Counts
				for _, c := range chunks {
					s, cc := c.SquareCounts()
					if err := s.Check(cc); err != nil {
						t.Fatalf("%v: %v", c, err)
					}
					sum.Add(s)
					counts.Add(cc)
				}
				for i := range wantAll {
					if sum.All[i] != wantAll[i] || sum.Unique[i] != wantUnique[i] {
						t.Fatalf("square (%d,%d): %d all, %d unique; brute force %d and %d",
							i/n, i%n, sum.All[i], sum.Unique[i], wantAll[i], wantUnique[i])
					}
				}
				if counts.Total != ref[n].Total || counts.Unique != ref[n].Unique {
					t.Fatalf("counts %+v, want %+v", counts, ref[n])
				}
				if err := sum.Check(solver.Counts{Total: ref[n].Total, Unique: ref[n].Unique}); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestSquareCountsSymmetric checks that the statistics of all solutions of
// N=10..12 are unchanged by the 8 symmetries of the square, as the set of
// solutions is.
func TestSquareCountsSymmetric(t *testing.T) {
	t.Parallel()
	for n := 10; n <= 12; n++ {
		chunks, err := solver.Chunks(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		sum := solver.NewSquareCounts(n)
		for _, c := range chunks {
			s, _ := c.SquareCounts()
			sum.Add(s)
		}
		for r := range n {
			for c := range n {
				all, _ := sum.At(r, c)
				for _, image := range [][2]int{{c, r}, {n - 1 - r, c}, {r, n - 1 - c}, {n - 1 - c, n - 1 - r}} {
					if other, _ := sum.At(image[0], image[1]); other != all {
						t.Fatalf("N=%d: square (%d,%d) has %d, its image (%d,%d) %d", n, r, c, all, image[0], image[1], other)
					}
				}
			}
		}
	}
}

// TestSquareCountsCheck shows that Check catches a table that does not add
// up.
func TestSquareCountsCheck(t *testing.T) {
	t.Parallel()
	s, counts := solver.Chunk{N: 6}.SquareCounts()
	if err := s.Check(counts); err != nil {
		t.Fatal(err)
	}
	s.All[0]++
	if err := s.Check(counts); err == nil {
		t.Error("Check accepts a square counted once too often")
	}
	s.All[0]--
	s.Unique[7]++
	if err := s.Check(counts); err == nil {
		t.Error("Check accepts a unique square counted once too often")
	}
	if err := (solver.SquareCounts{N: 3}).Check(solver.Counts{}); err == nil {
		t.Error("Check accepts tables of the wrong size")
	}
}
