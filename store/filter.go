package store

import (
	"slices"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// ClassFilters returns the filters a canonical solution of N meets exactly
// when some member of its class meets f: the images of f under the 8
// symmetries of the board, without repeats, f itself first. (Member g(c)
// meets f when c meets g⁻¹(f), and g⁻¹ runs over the same 8 symmetries as
// g.) f must have passed Check(n). Both backends turn these into one
// condition on the canonical rows, so that a unique page under a filter is
// one scan of the canonical index.
func ClassFilters(n int, f solver.Filter) []solver.Filter {
	var out []solver.Filter
	for _, s := range solver.Symmetries {
		g := solver.Filter{Queens: mapSquares(n, s, f.Queens), Empty: mapSquares(n, s, f.Empty)}
		if !slices.ContainsFunc(out, func(h solver.Filter) bool { return sameFilter(g, h) }) {
			out = append(out, g)
		}
	}
	return out
}

// MatchesClass reports whether some member of p's class meets f: the test
// a unique listing under f applies to its canonical solutions.
func MatchesClass(f solver.Filter, p solver.Placement) bool {
	for _, g := range ClassFilters(len(p), f) {
		if g.Matches(p) {
			return true
		}
	}
	return false
}

// mapSquares returns where s takes each square, sorted so that images
// that are the same set of squares compare equal.
func mapSquares(n int, s solver.Symmetry, squares []solver.Square) []solver.Square {
	out := make([]solver.Square, len(squares))
	for i, q := range squares {
		out[i] = mapSquare(n, s, q)
	}
	slices.SortFunc(out, func(a, b solver.Square) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	return slices.Compact(out)
}

// mapSquare is where symmetry s takes square q of an n×n board, as
// solver.Symmetry.Apply moves each queen (store_test checks the two agree).
func mapSquare(n int, s solver.Symmetry, q solver.Square) solver.Square {
	m := n - 1
	r, c := q.Row, q.Col
	switch s {
	case solver.Rot90:
		return solver.Square{Row: c, Col: m - r}
	case solver.Rot180:
		return solver.Square{Row: m - r, Col: m - c}
	case solver.Rot270:
		return solver.Square{Row: m - c, Col: r}
	case solver.ReflectVertical:
		return solver.Square{Row: r, Col: m - c}
	case solver.ReflectHorizontal:
		return solver.Square{Row: m - r, Col: c}
	case solver.ReflectDiagonal:
		return solver.Square{Row: c, Col: r}
	case solver.ReflectAntiDiagonal:
		return solver.Square{Row: m - c, Col: m - r}
	}
	return q
}

func sameFilter(a, b solver.Filter) bool {
	return slices.Equal(a.Queens, b.Queens) && slices.Equal(a.Empty, b.Empty)
}

// checkFilter checks a filter against a board of size n.
func checkFilter(n int, f solver.Filter) error {
	if k := len(f.Queens) + len(f.Empty); k > MaxFilterSquares {
		return nqueens.Errorf(nqueens.EINVALID, "a filter names at most %d squares (queens and empty together), got %d", MaxFilterSquares, k)
	}
	if err := f.Check(n); err != nil {
		return nqueens.Errorf(nqueens.EINVALID, "filter: %v", err)
	}
	return nil
}
