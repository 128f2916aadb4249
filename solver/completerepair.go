package solver

import (
	"fmt"
	"math/rand/v2"
)

// Repair's tuning, measured on N=1,000 and N=10,000 with 10 pinned queens
// (docs/PERFORMANCE.md, "Completion").
const (
	// greedyTries is how many of the unused columns the construction
	// tries for a row before it settles for the least attacked of them.
	greedyTries = 32
	// swapTries is how many partners a repair pass tries for an attacked
	// queen before it moves on to the next one.
	swapTries = 64
	// stallPasses is how many passes without a better board the repair
	// makes before it starts again from a new construction.
	stallPasses = 16
)

// completeRepair completes a large board by construction and repair
// (after Sosič and Gu's QS4): the pinned queens are placed, each other row
// takes one of the columns left, chosen at random among those that no
// queen placed so far attacks (or the least attacked of a few tries), so
// the columns form a permutation and only diagonals and blocked squares
// can conflict; then queens on attacked or blocked squares swap columns
// with other unpinned queens whenever that lowers the conflicts, until
// there are none. It answers Completed or, when the gauge stops it,
// Unknown: it never proves anything.
func completeRepair(n int, f Filter, g *gauge) Completion {
	r := repair{
		n:     n,
		rng:   rand.New(rand.NewPCG(f.seed(n), 0x6e71756565)), // "nquee"
		diag:  make([]int32, 2*n-1),
		anti:  make([]int32, 2*n-1),
		block: map[int]struct{}{},
	}
	pinnedRow := make([]bool, n)
	pinnedCol := make([]bool, n)
	for _, q := range f.Queens {
		pinnedRow[q.Row], pinnedCol[q.Col] = true, true
		r.add(q.Row, q.Col)
	}
	for _, e := range f.Empty {
		r.block[e.Row*n+e.Col] = struct{}{}
	}
	for i := range n {
		if !pinnedRow[i] {
			r.row = append(r.row, i)
		}
		if !pinnedCol[i] {
			r.col = append(r.col, i)
		}
	}
	for g.stopped == nil {
		r.construct(g)
		if r.repair(g) {
			p := make(Placement, n)
			for _, q := range f.Queens {
				p[q.Row] = q.Col
			}
			for i, row := range r.row {
				p[row] = r.col[i]
			}
			if err := ValidateN(n, p); err != nil || !f.Matches(p) {
				panic(fmt.Sprintf("solver: repair built a wrong completion of N=%d for %q: %v", n, f, err))
			}
			return Completion{State: Completed, Placement: p}
		}
		// Start again: take the unpinned queens off.
		for i, row := range r.row {
			if r.placed[i] {
				r.remove(row, r.col[i])
			}
		}
	}
	return Completion{State: Unknown}
}

// repair is the board of completeRepair: the unpinned queen of row[i]
// stands in column col[i]; diag and anti count the queens on each
// diagonal (row − col + n − 1) and anti-diagonal (row + col), pinned
// ones included.
type repair struct {
	n          int
	rng        *rand.Rand
	diag, anti []int32
	row, col   []int
	placed     []bool
	block      map[int]struct{}
}

func (r *repair) add(row, col int) {
	r.diag[row-col+r.n-1]++
	r.anti[row+col]++
}

func (r *repair) remove(row, col int) {
	r.diag[row-col+r.n-1]--
	r.anti[row+col]--
}

func (r *repair) blocked(row, col int) bool {
	if len(r.block) == 0 {
		return false
	}
	_, ok := r.block[row*r.n+col]
	return ok
}

// attacks counts what a queen at (row, col) would meet there: the queens
// on its diagonals, plus one if the square is blocked. For a placed
// queen, subtract its own two.
func (r *repair) attacks(row, col int) int32 {
	a := r.diag[row-col+r.n-1] + r.anti[row+col]
	if r.blocked(row, col) {
		a++
	}
	return a
}

// construct places the unpinned queens greedily: row i takes, of up to
// greedyTries columns drawn from those still unused, the first that
// nothing attacks, else the least attacked.
func (r *repair) construct(g *gauge) {
	m := len(r.row)
	r.placed = make([]bool, m)
	for i := 0; i < m; i++ {
		row := r.row[i]
		best, bestA := i, int32(1<<30)
		for t := 0; t < greedyTries; t++ {
			if !g.step() {
				break
			}
			j := i + r.rng.IntN(m-i)
			a := r.attacks(row, r.col[j])
			if a < bestA {
				best, bestA = j, a
			}
			if a == 0 {
				break
			}
		}
		r.col[i], r.col[best] = r.col[best], r.col[i]
		r.add(row, r.col[i])
		r.placed[i] = true
	}
}

// conflicts counts what the placed queen i meets.
func (r *repair) conflicts(i int) int32 {
	return r.attacks(r.row[i], r.col[i]) - 2
}

// repair swaps columns between unpinned queens while that lowers the
// conflicts (pairs of queens on a diagonal, queens on blocked squares),
// and reports whether it reached none. It gives up after stallPasses
// passes that made no swap, or when the gauge stops it.
func (r *repair) repair(g *gauge) bool {
	m := len(r.row)
	var attacked []int
	stall := 0
	for {
		attacked = attacked[:0]
		for i := range m {
			if r.conflicts(i) > 0 {
				attacked = append(attacked, i)
			}
		}
		if len(attacked) == 0 {
			return true
		}
		if m < 2 || stall >= stallPasses {
			return false
		}
		swapped := false
		for _, i := range attacked {
			for t := 0; t < swapTries && r.conflicts(i) > 0; t++ {
				if !g.step() {
					return false
				}
				j := r.rng.IntN(m)
				if j != i && r.trySwap(i, j) {
					swapped = true
					break
				}
			}
		}
		if swapped {
			stall = 0
		} else {
			stall++
		}
	}
}

// trySwap swaps the columns of queens i and j when that lowers the
// conflicts, and reports whether it did.
func (r *repair) trySwap(i, j int) bool {
	ri, rj, ci, cj := r.row[i], r.row[j], r.col[i], r.col[j]
	// The change in conflicts: each queen's count before, minus itself
	// (and, when both share a line, the other counted twice: removing
	// both first keeps that right).
	delta := -(r.attacks(ri, ci) - 2)
	r.remove(ri, ci)
	delta -= r.attacks(rj, cj) - 2
	r.remove(rj, cj)
	delta += r.attacks(ri, cj)
	r.add(ri, cj)
	delta += r.attacks(rj, ci)
	r.add(rj, ci)
	if delta < 0 {
		r.col[i], r.col[j] = cj, ci
		return true
	}
	r.remove(rj, ci)
	r.remove(ri, cj)
	r.add(rj, cj)
	r.add(ri, ci)
	return false
}
