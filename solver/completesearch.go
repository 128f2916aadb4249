package solver

import "math/bits"

// completeSearch decides the completion of a board of up to MaxSearchN
// rows exactly: a depth-first search that keeps, for each row without a
// queen, the columns still open there (the filter's row masks less the
// squares the placed queens attack), places a queen in the row with the
// fewest open columns first (pinned rows, with one, come first), and
// backtracks as soon as a row or a column has no open square left. Every
// branch it cuts has no solution, so running out of branches proves the
// filter impossible.
func completeSearch(n int, f Filter, g *gauge) Completion {
	s := exactSearch{n: n, g: g, p: make(Placement, n)}
	var open [MaxSearchN]uint32
	copy(open[:], f.RowMasks(n))
	all := uint32(1)<<uint(n) - 1
	if s.place(&open, all, all) {
		return Completion{State: Completed, Placement: s.p}
	}
	if g.stopped != nil {
		return Completion{State: Unknown}
	}
	return Completion{State: Impossible, Reason: "the exact search tried every placement that meets the filter: none is a solution"}
}

type exactSearch struct {
	n int
	g *gauge
	p Placement
}

// place fills the rows of rowsLeft, whose open columns are open, with
// the columns of colsLeft; it reports whether it found a solution (in
// s.p). It returns false also when the gauge stopped it.
func (s *exactSearch) place(open *[MaxSearchN]uint32, rowsLeft, colsLeft uint32) bool {
	if rowsLeft == 0 {
		return true
	}
	if !s.g.step() {
		return false
	}
	// The most constrained row, and whether every column left is still
	// open in some row.
	best, bestCount := -1, MaxSearchN+1
	var cover uint32
	for rows := rowsLeft; rows != 0; rows &= rows - 1 {
		r := bits.TrailingZeros32(rows)
		k := bits.OnesCount32(open[r])
		if k == 0 {
			return false
		}
		if k < bestCount {
			best, bestCount = r, k
		}
		cover |= open[r]
	}
	if cover&colsLeft != colsLeft {
		return false
	}
	r := best
	rest := rowsLeft &^ (1 << uint(r))
	var next [MaxSearchN]uint32
	for cs := open[r]; cs != 0; cs &= cs - 1 {
		c := bits.TrailingZeros32(cs)
		bit := uint32(1) << uint(c)
		for rows := rest; rows != 0; rows &= rows - 1 {
			r2 := bits.TrailingZeros32(rows)
			d := r2 - r
			if d < 0 {
				d = -d
			}
			// Shifts of 32 or more give 0: those diagonals leave the board.
			next[r2] = open[r2] &^ (bit | bit<<uint(d) | bit>>uint(d))
		}
		s.p[r] = c
		if s.place(&next, rest, colsLeft&^bit) {
			return true
		}
		if s.g.stopped != nil {
			return false
		}
	}
	return false
}
