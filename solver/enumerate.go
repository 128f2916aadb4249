package solver

import (
	"context"
	"iter"
	"math/bits"
	"slices"
)

// The functions here list solutions in lexicographic order of their
// placements, the order of the store's keys, so that cursor pagination can
// continue from any placement without counting what came before. Iterators
// yield a placement that is reused by the next step: Clone it to keep it.
// For N outside 1..MaxSearchN they yield nothing.

// All yields every solution of N in ascending order.
func All(n int) iter.Seq[Placement] {
	return walkSeq(walk{n: n})
}

// AllUnique yields the canonical solution of every symmetry class of N in
// ascending order.
func AllUnique(n int) iter.Seq[Placement] {
	return walkSeq(walk{n: n, unique: true})
}

// After returns up to k solutions of N strictly after p, in ascending
// order: the next page after a cursor. An empty p starts at the beginning.
func After(n int, p Placement, k int) ([]Placement, error) {
	return Page(context.Background(), PageQuery{N: n, Cursor: p, Limit: k})
}

// Before returns up to k solutions of N strictly before p: the page that
// ends just before a cursor, in ascending order like every page. An empty
// p ends at the last solution.
func Before(n int, p Placement, k int) ([]Placement, error) {
	return Page(context.Background(), PageQuery{N: n, Cursor: p, Limit: k, Backward: true})
}

// UniqueAfter is After restricted to canonical solutions.
func UniqueAfter(n int, p Placement, k int) ([]Placement, error) {
	return Page(context.Background(), PageQuery{N: n, Cursor: p, Limit: k, Unique: true})
}

// PageQuery asks for one page of solutions next to a cursor placement.
type PageQuery struct {
	N        int
	Cursor   Placement // exclusive bound; empty: from the start (or the end, going backward)
	Limit    int       // at most this many placements
	Backward bool      // the page before the cursor instead of after it
	Unique   bool      // canonical solutions only
	// Stop, when set, is the other end of a Relay window (after AND
	// before): the page holds only placements strictly short of it.
	Stop Placement
	// Filter, when not zero, keeps only the solutions it matches; with
	// Unique, the classes with at least one member that matches, listed
	// by their canonical member (which need not match itself). The order
	// and the cursors are those of the unfiltered listing: a cursor is a
	// placement, so it holds across filters. It must pass Check(N).
	Filter Filter
	// Checkpoint, when set, is called every few thousand nodes of the
	// search, in its goroutine; an error stops the search, and Page
	// returns it. A server shares its cores through it: a checkpoint may
	// wait for its turn. Page checks ctx besides.
	Checkpoint func() error
}

// Page returns the page q asks for, in ascending order. Far into a large
// board a page can take long to find (unique pages of N ≥ 20 especially):
// Page stops with ctx's error when ctx is done, so callers can bound it.
func Page(ctx context.Context, q PageQuery) ([]Placement, error) {
	if err := checkN(q.N); err != nil {
		return nil, err
	}
	if err := q.Filter.Check(q.N); err != nil {
		return nil, err
	}
	var out []Placement
	if q.Limit <= 0 {
		return out, nil
	}
	w := walk{n: q.N, bound: q.Cursor, bounded: len(q.Cursor) > 0, desc: q.Backward, unique: q.Unique}
	w.filter(q.Filter)
	var stopped error
	w.check = func() bool {
		if stopped = ctx.Err(); stopped == nil && q.Checkpoint != nil {
			stopped = q.Checkpoint()
		}
		return stopped == nil
	}
	for p := range walkSeq(w) {
		if len(q.Stop) > 0 && (q.Backward && p.Compare(q.Stop) <= 0 || !q.Backward && p.Compare(q.Stop) >= 0) {
			break
		}
		out = append(out, p.Clone())
		if len(out) == q.Limit {
			break
		}
	}
	if len(out) < q.Limit && stopped != nil {
		return nil, stopped
	}
	if q.Backward {
		slices.Reverse(out)
	}
	return out, nil
}

// walk is one ordered depth-first search over the board, row by row,
// trying columns in ascending (or descending) order, which lists solutions
// in lexicographic (or reverse) order.
type walk struct {
	n       int
	fixed   Placement // leading rows every solution must have (a chunk's prefix)
	bound   Placement // exclusive bound: list only solutions beyond it
	bounded bool
	desc    bool
	unique  bool // only canonical solutions
	// masks, when set, are the columns each row may use (masks[i][r])
	// under each of a filter's images i: a placement is listed when it
	// keeps to all the rows of one image (filter.go, searchMasks). The
	// search tracks which images the rows so far keep to. reach[r] is
	// the union over the images, for the look-ahead.
	masks [][]uint32
	reach []uint32

	check   func() bool // called every few thousand nodes, false stops the walk; nil: never
	mask    uint32
	p       Placement
	yield   func(Placement) bool
	stopped bool
	nodes   uint64
}

func walkSeq(w walk) iter.Seq[Placement] {
	return func(yield func(Placement) bool) {
		if checkN(w.n) != nil {
			return
		}
		w.mask = uint32(1)<<uint(w.n) - 1
		w.p = make(Placement, w.n)
		w.yield = yield
		w.stopped = false
		w.row(0, 0, 0, 0, w.bounded, uint8(1)<<uint(len(w.masks))-1)
	}
}

// filter restricts the walk to the placements f matches (unique: the
// canonical placements that match one of f's images). f must have passed
// Check(w.n); the zero filter leaves the walk as it is.
func (w *walk) filter(f Filter) {
	if f.IsZero() {
		return
	}
	if w.unique {
		w.masks = imageMasks(w.n, f)
	} else {
		w.masks = [][]uint32{searchMasks(w.n, f)}
	}
	if len(w.masks) == 0 {
		// No image can match: one that allows no square lists nothing.
		w.masks = [][]uint32{make([]uint32, w.n)}
	}
	w.reach = make([]uint32, w.n)
	for _, m := range w.masks {
		for r, rm := range m {
			w.reach[r] |= rm
		}
	}
}

// row tries every allowed column of row r. tight means the rows above equal
// the bound's, so this row may not go past the bound's column. alive is
// the set of the filter's images the rows above keep to (w.masks).
func (w *walk) row(r int, cols, ld, rd uint32, tight bool, alive uint8) {
	if w.nodes++; w.nodes&(1<<14-1) == 1 && w.check != nil && !w.check() {
		w.stopped = true
		return
	}
	n := w.n
	avail := w.mask &^ (cols | ld | rd)
	if r < len(w.fixed) {
		avail &= 1 << uint(w.fixed[r])
	}
	if w.unique {
		avail &= w.canonicalMask(r)
	}
	if w.masks != nil {
		var m uint32
		for a := alive; a != 0; a &= a - 1 {
			m |= w.masks[bits.TrailingZeros8(a)][r]
		}
		avail &= m
	}
	bc := -1 // the bound's column in this row, when tight
	if tight {
		if r >= len(w.bound) {
			// The bound is a proper prefix of everything below: all of it
			// sorts after the bound, none before.
			if w.desc {
				return
			}
			tight = false
		} else if bc = w.bound[r]; bc < 0 || bc >= n {
			// A column off the board: every real column is on one side.
			if (bc < 0) != w.desc {
				tight = false
			} else {
				return
			}
		} else if w.desc {
			avail &= uint32(2)<<uint(bc) - 1 // columns ≤ bc
		} else {
			avail &^= uint32(1)<<uint(bc) - 1 // columns ≥ bc
		}
	}
	last := r == n-1
	for avail != 0 && !w.stopped {
		var c int
		if w.desc {
			c = 31 - bits.LeadingZeros32(avail)
		} else {
			c = bits.TrailingZeros32(avail)
		}
		bit := uint32(1) << uint(c)
		avail ^= bit
		t := tight && c == bc
		w.p[r] = c
		na := alive
		if w.masks != nil {
			na = 0
			for a := alive; a != 0; a &= a - 1 {
				if i := bits.TrailingZeros8(a); w.masks[i][r]&bit != 0 {
					na |= 1 << uint(i)
				}
			}
		}
		if last {
			// t: the solution equals the bound's first N rows. It is beyond
			// the bound only when the bound is longer (a descending walk).
			if t && !(w.desc && len(w.bound) > n) || w.unique && !IsCanonical(w.p) {
				continue
			}
			if !w.yield(w.p) {
				w.stopped = true
			}
			continue
		}
		nc, nl, nr := cols|bit, (ld|bit)<<1, (rd|bit)>>1
		// Look ahead: the next two rows must keep a free square.
		next, after := w.mask, w.mask
		if w.reach != nil {
			next = w.reach[r+1]
			if r+2 < n {
				after = w.reach[r+2]
			}
		}
		if next&^(nc|nl|nr) == 0 || r+2 < n && after&^(nc|nl<<1|nr>>1) == 0 {
			continue
		}
		w.row(r+1, nc, nl, nr, t, na)
	}
}

// canonicalMask returns the squares of row r that a canonical placement
// may use. Its first queen, at column t, is no further from a corner than
// any queen on the board's edge is from its nearest corner (else an image
// would start with a smaller column): so the first half-row only, the edge
// columns only in rows t..N-1-t, and the last row only in columns t..N-1-t.
// IsCanonical settles the ties at the end.
func (w *walk) canonicalMask(r int) uint32 {
	n := w.n
	if r == 0 {
		return uint32(1)<<uint((n+1)/2) - 1
	}
	t := w.p[0]
	m := w.mask
	if r < t || r > n-1-t {
		m &^= 1 | 1<<uint(n-1)
	}
	if r == n-1 {
		m &= (uint32(1)<<uint(n-t) - 1) &^ (uint32(1)<<uint(t) - 1)
	}
	return m
}
