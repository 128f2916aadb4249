package store

import (
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestMapSquareMovesQueens checks mapSquare against the solver: each
// symmetry moves every queen of every solution of N=1..8 to the square
// where the solver's image of that solution has it.
func TestMapSquareMovesQueens(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 8; n++ {
		for p := range solver.All(n) {
			for _, s := range solver.Symmetries {
				image := s.Apply(p)
				for r, c := range p {
					if q := mapSquare(n, s, solver.Square{Row: r, Col: c}); image[q.Row] != q.Col {
						t.Fatalf("N=%d %v: %s moves (%d,%d) to (%d,%d), but its image %v has no queen there", n, p, s, r, c, q.Row, q.Col, image)
					}
				}
			}
		}
	}
}

// TestMatchesClass checks MatchesClass against the images of every
// canonical solution of N=1..8 under filters of one queen and one empty
// square anywhere.
func TestMatchesClass(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 8; n++ {
		for p := range solver.AllUnique(n) {
			for sq := range n * n {
				q := solver.Square{Row: sq / n, Col: sq % n}
				for _, f := range []solver.Filter{{Queens: []solver.Square{q}}, {Empty: []solver.Square{q}}} {
					want := false
					for _, im := range solver.Images(p) {
						want = want || f.Matches(im.Placement)
					}
					if got := MatchesClass(f, p); got != want {
						t.Errorf("N=%d MatchesClass(%q, %v) = %t, want %t", n, f, p, got, want)
					}
				}
			}
		}
	}
}
