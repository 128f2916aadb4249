package solver

import "fmt"

// SquareCounts are the statistics of a board, or of a part of one (a
// chunk): for each square, how many solutions have a queen on it (All),
// and how many canonical solutions do (Unique: the same count over one
// member per symmetry class). Both are N×N, row by row: All[r*N+c] is the
// square of row r and column c.
//
// A solution puts exactly one queen in every row and every column, so
// each row and each column of All sums to the solutions counted, and of
// Unique to the canonical ones (Check).
type SquareCounts struct {
	N      int
	All    []uint64
	Unique []uint64
}

// NewSquareCounts returns the zero statistics of a board of size n.
func NewSquareCounts(n int) SquareCounts {
	return SquareCounts{N: n, All: make([]uint64, n*n), Unique: make([]uint64, n*n)}
}

// AddSolution counts one solution p of the board, canonical or not. It is
// the per-row column histogram of an enumeration: N increments, a
// fraction of what the canonical test of the solution costs.
func (s *SquareCounts) AddSolution(p Placement, canonical bool) {
	for r, c := range p {
		s.All[r*s.N+c]++
	}
	if canonical {
		for r, c := range p {
			s.Unique[r*s.N+c]++
		}
	}
}

// Add accumulates o, of the same N, into s: the statistics of two parts
// of a board are their sum.
func (s *SquareCounts) Add(o SquareCounts) {
	for i, v := range o.All {
		s.All[i] += v
	}
	for i, v := range o.Unique {
		s.Unique[i] += v
	}
}

// At returns the counts of the square in row r and column c.
func (s SquareCounts) At(r, c int) (all, unique uint64) {
	return s.All[r*s.N+c], s.Unique[r*s.N+c]
}

// Rows returns a table (All or Unique) as N rows of N counts.
func (s SquareCounts) Rows(table []uint64) [][]uint64 {
	out := make([][]uint64, s.N)
	for r := range out {
		out[r] = table[r*s.N : (r+1)*s.N : (r+1)*s.N]
	}
	return out
}

// Check verifies the statistics against the counts of the same board or
// part: every row and every column of All sums to c.Total, of Unique to
// c.Unique. Statistics summed from pieces are checked with it before they
// are trusted.
func (s SquareCounts) Check(c Counts) error {
	if len(s.All) != s.N*s.N || len(s.Unique) != s.N*s.N {
		return fmt.Errorf("solver: square counts of N=%d have %d and %d squares, want %d", s.N, len(s.All), len(s.Unique), s.N*s.N)
	}
	for _, t := range []struct {
		name  string
		table []uint64
		want  uint64
	}{{"all", s.All, c.Total}, {"unique", s.Unique, c.Unique}} {
		for i := range s.N {
			var row, col uint64
			for j := range s.N {
				row += t.table[i*s.N+j]
				col += t.table[j*s.N+i]
			}
			if row != t.want {
				return fmt.Errorf("solver: square counts (%s) of row %d sum to %d, want %d", t.name, i, row, t.want)
			}
			if col != t.want {
				return fmt.Errorf("solver: square counts (%s) of column %d sum to %d, want %d", t.name, i, col, t.want)
			}
		}
	}
	return nil
}

// SquareCounts computes the chunk's statistics and its counts in one
// enumeration of its solutions. Summed over all chunks of N they are the
// board's.
func (c Chunk) SquareCounts() (SquareCounts, Counts) {
	s := NewSquareCounts(c.N)
	var counts Counts
	for p := range c.Solutions() {
		canonical := IsCanonical(p)
		counts.AddSolution(canonical, OrbitSize(p))
		s.AddSolution(p, canonical)
	}
	return s, counts
}
