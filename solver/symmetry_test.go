package solver_test

import (
	"slices"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// square applies a symmetry to one square by its definition on the drawn
// board, independently of Symmetry.Apply.
func square(s solver.Symmetry, n, r, c int) (int, int) {
	m := n - 1
	switch s.String() {
	case "rot90": // clockwise: the top row becomes the right column
		return c, m - r
	case "rot180":
		return m - r, m - c
	case "rot270":
		return m - c, r
	case "reflectVertical":
		return r, m - c
	case "reflectHorizontal":
		return m - r, c
	case "reflectDiagonal":
		return c, r
	case "reflectAntiDiagonal":
		return m - c, m - r
	}
	return r, c
}

func TestSymmetriesMoveEveryQueenAsDefined(t *testing.T) {
	t.Parallel()
	for p := range solver.All(8) {
		for _, s := range solver.Symmetries {
			img := s.Apply(p)
			for r, c := range p {
				r2, c2 := square(s, 8, r, c)
				if img[r2] != c2 {
					t.Fatalf("%s of %v: queen (%d,%d) should be at (%d,%d), image %v", s, p, r, c, r2, c2, img)
				}
			}
		}
	}
}

func TestSymmetryNamesRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range solver.Symmetries {
		name := s.String()
		if seen[name] {
			t.Fatalf("name %q used twice", name)
		}
		seen[name] = true
		back, err := solver.ParseSymmetry(name)
		if err != nil || back != s {
			t.Errorf("ParseSymmetry(%q) = %v, %v", name, back, err)
		}
	}
	if _, err := solver.ParseSymmetry("rot45"); err == nil {
		t.Error("rot45 was accepted")
	}
}

func TestOrbitSizes(t *testing.T) {
	t.Parallel()
	if got := solver.OrbitSize(solver.Placement{0}); got != 1 {
		t.Errorf("N=1 orbit %d, want 1", got)
	}
	for n := 4; n <= 10; n++ {
		for p := range solver.All(n) {
			distinct := map[string]bool{}
			for _, img := range solver.Images(p) {
				distinct[img.Placement.String()] = true
			}
			if got := solver.OrbitSize(p); got != len(distinct) {
				t.Fatalf("%v: OrbitSize %d, %d distinct images", p, got, len(distinct))
			}
			if !slices.Contains([]int{2, 4, 8}, len(distinct)) {
				t.Fatalf("%v: orbit of %d", p, len(distinct))
			}
		}
	}
}
