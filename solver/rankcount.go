package solver

import "math/bits"

// rankCounts counts the chunk's solutions (Total) and its canonical ones
// (Unique and the Orbit fields): countFiltered's counts for the zero
// filter, which are a rank index's (RankChunkDepth), by a search of its
// own. The general walk pays, at every node, for filters, bounds and an
// iterator, and at every solution for its inverse; this one keeps the
// inverse as it places queens. And a chunk whose first queen is right of
// the middle has no canonical solution (its mirror image has the smaller
// first row), so its solutions are only counted. check is as
// countFiltered's; ok is false when it stopped the search.
func (c Chunk) rankCounts(check func() bool) (out Counts, ok bool) {
	n := c.N
	s := rankSearch{n: n, mask: uint32(1)<<uint(n) - 1, prefix: c.Prefix, check: check}
	s.p, s.inv = s.cells[:n], s.cells[MaxSearchN:MaxSearchN+n]
	s.totalOnly = len(c.Prefix) > 0 && 2*c.Prefix[0] > n-1
	s.row(0, 0, 0, 0)
	return s.out, !s.stopped
}

// rankSearch is the state of one chunk's rankCounts.
type rankSearch struct {
	n         int
	mask      uint32
	prefix    Placement
	totalOnly bool
	check     func() bool
	nodes     uint64
	stopped   bool
	cells     [2 * MaxSearchN]int
	p, inv    Placement // the queens so far, by row and by column
	out       Counts
}

func (s *rankSearch) row(r int, cols, ld, rd uint32) {
	if s.nodes++; s.nodes&(1<<14-1) == 1 && s.check != nil && !s.check() {
		s.stopped = true
		return
	}
	avail := s.mask &^ (cols | ld | rd)
	if r < len(s.prefix) {
		avail &= 1 << uint(s.prefix[r])
	}
	if r == s.n-1 {
		// One column is left: a solution, or none.
		if avail == 0 {
			return
		}
		s.out.Total++
		if s.totalOnly {
			return
		}
		c := bits.TrailingZeros32(avail)
		s.p[r], s.inv[c] = c, r
		if canonicalWithInverse(s.p, s.inv) {
			s.out.addClass(OrbitSize(s.p))
		}
		return
	}
	for avail != 0 && !s.stopped {
		bit := avail & -avail
		avail ^= bit
		c := bits.TrailingZeros32(bit)
		s.p[r], s.inv[c] = c, r
		s.row(r+1, cols|bit, (ld|bit)<<1, (rd|bit)>>1)
	}
}
