package solver

import (
	"iter"
	"slices"
)

// The search side of a Filter: the row masks the ordered walk prunes
// with, the filter's images under the symmetries (for unique listings),
// and the test that names each matching class by one member (for counts).
//
// Unique under a filter: the listing of the symmetry classes with at least
// one member that matches the filter, each listed by its canonical member
// (which need not match itself), in the order of the unfiltered unique
// listing. A class has a member g(c) matching F exactly when its
// canonical member c matches g⁻¹(F), the filter moved by the inverse
// symmetry; over the group these are F's images, so the canonical walk
// keeps the rows of at most 8 filters at once and drops an image as soon
// as a row leaves it.

// Matching yields the solutions of N that f matches (unique: the classes
// with a member that matches, by their canonical member), in ascending
// order. Like All it reuses the placement it yields; it yields nothing
// when N is out of range or f does not pass Check(N).
func Matching(n int, f Filter, unique bool) iter.Seq[Placement] {
	if checkN(n) != nil || f.Check(n) != nil {
		return func(func(Placement) bool) {}
	}
	w := walk{n: n, unique: unique}
	w.filter(f)
	return walkSeq(w)
}

// MatchingSolutions yields the chunk's solutions that f matches, in
// ascending order; nothing when f does not pass Check(c.N).
func (c Chunk) MatchingSolutions(f Filter) iter.Seq[Placement] {
	if checkN(c.N) != nil || f.Check(c.N) != nil {
		return func(func(Placement) bool) {}
	}
	w := walk{n: c.N, fixed: c.Prefix}
	w.filter(f)
	return walkSeq(w)
}

// searchMasks are f's RowMasks without the squares a pinned queen attacks
// (its column and diagonals in the other rows): no matching solution
// uses them, and leaving them out lets a walk see a pinned queen from the
// first row instead of the pinned row. Pinned queens that attack each
// other leave a row empty, so the walk finds nothing at once.
func searchMasks(n int, f Filter) []uint32 {
	masks := f.RowMasks(n)
	for _, q := range f.Queens {
		for r := range masks {
			if r == q.Row {
				continue
			}
			d := r - q.Row
			for _, c := range [3]int{q.Col, q.Col + d, q.Col - d} {
				if c >= 0 && c < n {
					masks[r] &^= 1 << uint(c)
				}
			}
		}
	}
	return masks
}

// moved returns the filter whose squares are f's moved by s.
func (f Filter) moved(n int, s Symmetry) Filter {
	m := Filter{Queens: make([]Square, len(f.Queens)), Empty: make([]Square, len(f.Empty))}
	for i, q := range f.Queens {
		m.Queens[i].Row, m.Queens[i].Col = s.mapSquare(n, q.Row, q.Col)
	}
	for i, e := range f.Empty {
		m.Empty[i].Row, m.Empty[i].Col = s.mapSquare(n, e.Row, e.Col)
	}
	return m
}

// Images returns f's distinct images under the 8 symmetries of a board of
// size n, f's own first, each canonical (Filter.Canonical): a canonical
// solution's class has a member f matches exactly when the solution
// matches one of them (member g(c) matches f when c matches g⁻¹(f), and
// g⁻¹ runs over the same 8 symmetries as g). f must have passed Check(n).
// A store turns them into one condition on its canonical rows.
func (f Filter) Images(n int) []Filter {
	var out []Filter
	for _, s := range Symmetries {
		g := f.moved(n, s).Canonical()
		if !slices.ContainsFunc(out, func(h Filter) bool {
			return slices.Equal(g.Queens, h.Queens) && slices.Equal(g.Empty, h.Empty)
		}) {
			out = append(out, g)
		}
	}
	return out
}

// imageMasks returns the search masks of f's distinct images under the 8
// symmetries: a canonical solution's class has a member f matches exactly
// when the solution keeps to the masks of one of them. Images that can
// match nothing (a row left empty) are dropped.
func imageMasks(n int, f Filter) [][]uint32 {
	var out [][]uint32
	for _, s := range Symmetries {
		m := searchMasks(n, f.moved(n, s))
		if slices.Contains(m, 0) || slices.ContainsFunc(out, func(o []uint32) bool { return slices.Equal(o, m) }) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// inverse returns the symmetry that undoes s.
func (s Symmetry) inverse() Symmetry {
	switch s {
	case Rot90:
		return Rot270
	case Rot270:
		return Rot90
	}
	return s
}

// classNamer picks, of each class with members a filter matches, one
// matching member to count the class at: the smallest. Counting a class
// at a member of its own lets a count split into prefix chunks (each
// member lies in exactly one) and still count every class once.
type classNamer struct {
	// pre[s] is the filter moved by s⁻¹: s(p) matches the filter exactly
	// when p matches pre[s].
	pre [8]Filter
}

func newClassNamer(n int, f Filter) *classNamer {
	var c classNamer
	for _, s := range Symmetries {
		c.pre[s] = f.moved(n, s.inverse())
	}
	return &c
}

// names reports whether p, a solution that matches the filter, is the
// smallest matching member of its class. Each image is compared row by
// row straight from p and its inverse, and only a smaller one is checked
// against the filter.
func (c *classNamer) names(p Placement) bool {
	n := len(p)
	var buf [MaxSearchN]int
	inv := Placement(buf[:n])
	for r, col := range p {
		inv[col] = r
	}
	for _, s := range Symmetries[1:] {
		for x := range n {
			if q := s.imageRow(p, inv, x); q != p[x] {
				if q < p[x] && c.pre[s].Matches(p) {
					return false
				}
				break
			}
		}
	}
	return true
}
