package solver

import "fmt"

// Symmetry is one of the 8 transformations of the square (the dihedral
// group D4). Each maps every solution to a solution.
type Symmetry int

// The 8 symmetries. Rotations turn the drawn board clockwise (row 0 on
// top); reflections are named by the axis they mirror across.
const (
	Identity            Symmetry = iota
	Rot90                        // clockwise quarter turn
	Rot180                       // half turn
	Rot270                       // clockwise three-quarter turn
	ReflectVertical              // mirror across the vertical axis: columns reversed
	ReflectHorizontal            // mirror across the horizontal axis: rows reversed
	ReflectDiagonal              // mirror across the main diagonal (top-left to bottom-right)
	ReflectAntiDiagonal          // mirror across the anti-diagonal (top-right to bottom-left)
)

// Symmetries lists the 8 transformations, identity first.
var Symmetries = [8]Symmetry{Identity, Rot90, Rot180, Rot270, ReflectVertical, ReflectHorizontal, ReflectDiagonal, ReflectAntiDiagonal}

var symmetryNames = [8]string{"identity", "rot90", "rot180", "rot270", "reflectVertical", "reflectHorizontal", "reflectDiagonal", "reflectAntiDiagonal"}

// String returns the transformation's name, e.g. "rot90".
func (s Symmetry) String() string {
	if s < 0 || int(s) >= len(symmetryNames) {
		return fmt.Sprintf("Symmetry(%d)", int(s))
	}
	return symmetryNames[s]
}

// ParseSymmetry is the inverse of Symmetry.String.
func ParseSymmetry(name string) (Symmetry, error) {
	for i, s := range symmetryNames {
		if s == name {
			return Symmetry(i), nil
		}
	}
	return 0, fmt.Errorf("unknown symmetry %q (allowed: identity, rot90, rot180, rot270, reflectVertical, reflectHorizontal, reflectDiagonal, reflectAntiDiagonal)", name)
}

// mapSquare returns where the square (r, c) of an n×n board goes.
func (s Symmetry) mapSquare(n, r, c int) (int, int) {
	m := n - 1
	switch s {
	case Rot90:
		return c, m - r
	case Rot180:
		return m - r, m - c
	case Rot270:
		return m - c, r
	case ReflectVertical:
		return r, m - c
	case ReflectHorizontal:
		return m - r, c
	case ReflectDiagonal:
		return c, r
	case ReflectAntiDiagonal:
		return m - c, m - r
	}
	return r, c
}

// Apply returns the image of p under s as a new placement. p must be a
// permutation (every valid placement is).
func (s Symmetry) Apply(p Placement) Placement {
	n := len(p)
	q := make(Placement, n)
	for r, c := range p {
		r2, c2 := s.mapSquare(n, r, c)
		q[r2] = c2
	}
	return q
}

// Image is a placement together with the transformation that produced it.
type Image struct {
	Symmetry  Symmetry
	Placement Placement
}

// Images returns the 8 images of p, one per symmetry, identity first.
// Images may repeat when p is itself symmetric.
func Images(p Placement) []Image {
	out := make([]Image, len(Symmetries))
	for i, s := range Symmetries {
		out[i] = Image{Symmetry: s, Placement: s.Apply(p)}
	}
	return out
}

// Canonical returns the lexicographically smallest image of p: the name of
// p's symmetry class.
func Canonical(p Placement) Placement {
	best := p.Clone()
	for _, s := range Symmetries[1:] {
		if q := s.Apply(p); q.Compare(best) < 0 {
			best = q
		}
	}
	return best
}

// IsCanonical reports whether p, a solution, is the smallest member of its
// class. Each image is read row by row straight from p and its inverse, so
// a comparison stops at the first row that differs (nearly always the
// first): the store classifies every solution it writes with this.
func IsCanonical(p Placement) bool {
	n := len(p)
	var buf [MaxSearchN]int
	var inv []int
	if n <= MaxSearchN {
		inv = buf[:n]
	} else {
		inv = make([]int, n)
	}
	for r, c := range p {
		inv[c] = r // the row of the queen in column c
	}
	return canonicalWithInverse(p, inv)
}

// canonicalWithInverse is IsCanonical given p's inverse, for a search that
// keeps it as it goes.
func canonicalWithInverse(p, inv Placement) bool {
	n := len(p)
	for _, s := range Symmetries[1:] {
		for x := range n {
			if q := s.imageRow(p, inv, x); q != p[x] {
				if q < p[x] {
					return false
				}
				break
			}
		}
	}
	return true
}

// imageRow returns row x of the image of p under s, given p's inverse:
// the column of the image's queen in row x, from mapSquare.
func (s Symmetry) imageRow(p, inv Placement, x int) int {
	m := len(p) - 1
	switch s {
	case Rot90:
		return m - inv[x]
	case Rot180:
		return m - p[m-x]
	case Rot270:
		return inv[m-x]
	case ReflectVertical:
		return m - p[x]
	case ReflectHorizontal:
		return p[m-x]
	case ReflectDiagonal:
		return inv[x]
	case ReflectAntiDiagonal:
		return m - inv[m-x]
	}
	return p[x]
}

// OrbitSize returns how many distinct placements the 8 symmetries make of
// a solution: 8, 4 (unchanged by a half turn), 2 (unchanged by a quarter
// turn), or 1 for the single queen of N=1. It builds no image: bulk loads
// classify millions of solutions with it.
func OrbitSize(p Placement) int {
	switch {
	case len(p) <= 1:
		return 1
	case !fixedByHalfTurn(p):
		return 8
	case fixedByQuarterTurn(p):
		return 2
	}
	return 4
}

// fixedByHalfTurn reports whether rotating p by 180° gives p.
func fixedByHalfTurn(p Placement) bool {
	m := len(p) - 1
	for r, c := range p {
		if p[m-r] != m-c {
			return false
		}
	}
	return true
}

// fixedByQuarterTurn reports whether rotating p by 90° gives p: the queen
// (r, c) must map to (c, N-1-r), which is a queen when p[c] = N-1-r.
func fixedByQuarterTurn(p Placement) bool {
	m := len(p) - 1
	for r, c := range p {
		if p[c] != m-r {
			return false
		}
	}
	return true
}
