package solver

import (
	"fmt"
	"iter"
)

// Chunk is the part of N's solutions that begin with a fixed prefix (the
// columns of the first Depth rows). The chunks of one depth, in order,
// partition the ordered enumeration into consecutive runs, so they can be
// computed anywhere, in any order, and stored side by side.
type Chunk struct {
	N      int       `json:"n"`
	Prefix Placement `json:"prefix"`
}

func (c Chunk) String() string { return fmt.Sprintf("N=%d prefix [%v]", c.N, c.Prefix) }

// DefaultChunkDepth is the prefix length that splits N into chunks worth
// a job each. A job costs a few database round trips besides its rows, so
// chunks should be large; the store's rank lookups count within one chunk,
// so not too large: from N=12 on, about 1,000 to 13,000 solutions a chunk —
// one row up to N=13 (N=13: 13 chunks of 5,700), two rows for N=14 and 15
// (2,300 and 12,500 solutions), three from N=16 (2,236 chunks of 6,600).
func DefaultChunkDepth(n int) int {
	switch {
	case n <= 13:
		return min(n, 1)
	case n <= 15:
		return 2
	case n <= 20:
		return 3
	default:
		return 4
	}
}

// Chunks returns, in lexicographic order, every prefix of depth rows in
// which no two queens attack each other. Depth is clamped to 0..N; depth 0
// is one chunk, the whole board. Some chunks may hold no solution.
func Chunks(n, depth int) ([]Chunk, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	depth = max(0, min(depth, n))
	var out []Chunk
	prefix := make(Placement, depth)
	var place func(r int, cols, ld, rd uint32)
	place = func(r int, cols, ld, rd uint32) {
		if r == depth {
			out = append(out, Chunk{N: n, Prefix: prefix.Clone()})
			return
		}
		avail := (uint32(1)<<uint(n) - 1) &^ (cols | ld | rd)
		for c := 0; c < n; c++ {
			bit := uint32(1) << uint(c)
			if avail&bit != 0 {
				prefix[r] = c
				place(r+1, cols|bit, (ld|bit)<<1, (rd|bit)>>1)
			}
		}
	}
	place(0, 0, 0, 0)
	return out, nil
}

// Validate checks that the chunk's prefix is a valid start of a board of
// its N.
func (c Chunk) Validate() error {
	if err := checkN(c.N); err != nil {
		return err
	}
	if len(c.Prefix) > c.N {
		return fmt.Errorf("solver: prefix of %d rows is longer than N=%d", len(c.Prefix), c.N)
	}
	for r, col := range c.Prefix {
		if col < 0 || col >= c.N {
			return fmt.Errorf("solver: prefix row %d: column %d is outside 0..%d", r, col, c.N-1)
		}
		for r2 := range r {
			if d := c.Prefix[r2] - col; d == 0 || d == r-r2 || d == r2-r {
				return fmt.Errorf("solver: prefix rows %d and %d attack each other", r2, r)
			}
		}
	}
	return nil
}

// Solutions yields the chunk's solutions in ascending order. Like the other
// iterators it reuses the placement it yields.
func (c Chunk) Solutions() iter.Seq[Placement] {
	return walkSeq(walk{n: c.N, fixed: c.Prefix})
}

// Walk yields the chunk's solutions in ascending order, only the
// canonical ones when unique: the chunk's part of the listing of All (or
// AllUnique). check, when not nil, is called every few thousand nodes of
// the search, and false stops it. Like the other iterators it reuses the
// placement it yields.
func (c Chunk) Walk(unique bool, check func() bool) iter.Seq[Placement] {
	return walkSeq(walk{n: c.N, fixed: c.Prefix, unique: unique, check: check})
}

// Count counts the chunk's solutions (Total) and, among them, the canonical
// members of their classes (Unique and the Orbit fields). Summed over all
// chunks of N these are the board's Counts.
func (c Chunk) Count() Counts {
	var out Counts
	for p := range c.Solutions() {
		out.AddSolution(IsCanonical(p), OrbitSize(p))
	}
	return out
}
