package store

import "github.com/nqueens/nqueens/solver"

// Solution is one stored solution.
type Solution struct {
	N         int
	Placement solver.Placement
	// Canonical: the lexicographically smallest member of its symmetry
	// class, the one unique pages list.
	Canonical bool
	// OrbitSize is how many members its class has: 8, 4, 2 (or 1 for N=1).
	OrbitSize int
	// Rank is its 1-based position (among canonical solutions when asked
	// for unique ones); set by SolutionAt, zero in pages.
	Rank uint64
}

// Direction says which side of a cursor a page lies on.
type Direction int

const (
	// Forward pages list the first solutions after the cursor (from the
	// first solution when the cursor is empty).
	Forward Direction = iota
	// Backward pages list the last solutions before the cursor (up to the
	// last solution when the cursor is empty).
	Backward
)

// MaxPageLimit bounds PageRequest.Limit.
const MaxPageLimit = 10_000

// PageRequest asks for one page of the solutions of N.
type PageRequest struct {
	N int
	// Unique restricts the page to canonical solutions.
	Unique    bool
	Direction Direction
	// Cursor is an exclusive bound: a placement of N (not necessarily a
	// solution), or empty for the start (Forward) or end (Backward).
	Cursor solver.Placement
	// Limit is how many solutions at most, 0..MaxPageLimit.
	Limit int
}

// WalkRequest asks for every stored solution of N after a cursor, in
// ascending order, as Page would list them page after page.
type WalkRequest struct {
	N      int
	Unique bool
	// After is an exclusive lower bound (a placement of N), or empty for
	// the start.
	After solver.Placement
	// Filter keeps the solutions with a queen on every Filter.Queens
	// square and none on any Filter.Empty square; the zero Filter keeps
	// all. With Unique it keeps the classes that have at least one
	// matching member, each by its canonical member (which need not
	// match itself), as solver.Matching lists them.
	Filter solver.Filter
}
