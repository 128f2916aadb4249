package precompute

import (
	"iter"

	"github.com/nqueens/nqueens/solver"
)

// solutions are a chunk's solutions held compactly: one byte per row, N
// bytes each, in order.
type solutions struct {
	n    int
	keys []byte
}

func listSolutions(c solver.Chunk) solutions {
	s := solutions{n: c.N}
	for p := range c.Solutions() {
		for _, col := range p {
			s.keys = append(s.keys, byte(col))
		}
	}
	return s
}

// All yields the solutions in order, reusing one placement, as the
// solver's iterators do.
func (s solutions) All() iter.Seq[solver.Placement] {
	return func(yield func(solver.Placement) bool) {
		p := make(solver.Placement, s.n)
		for off := 0; off < len(s.keys); off += s.n {
			for i, b := range s.keys[off : off+s.n] {
				p[i] = int(b)
			}
			if !yield(p) {
				return
			}
		}
	}
}
