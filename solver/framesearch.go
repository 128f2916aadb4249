package solver

import (
	"context"
	"math/bits"
)

// frameSearch is a task prepared for the bitboard search. The queen of row
// 0 is placed before the search starts; rows 1..N-2 are filled top to
// bottom; the queen of row N-1 is fixed. A row holding the left or right
// frame queen is "forced": its only allowed square is that queen's, placed
// like any other so that its diagonals shift down with the rest.
type frameSearch struct {
	n       int
	allowed []uint32 // per row 1..N-2: squares not attacked from below by the frame
	cols    uint32   // columns taken before the search: the top and bottom queens
	ld, rd  uint32   // the top queen's diagonals, as seen from row 1
	frame   []square
}

func newFrameSearch(t Task) *frameSearch {
	n := t.N
	inner := uint32(1)<<uint(n-1) - 2 // columns 1..N-2
	top := uint32(1) << uint(t.Top)
	fs := &frameSearch{
		n:     n,
		cols:  top | 1<<uint(t.Bottom),
		ld:    top << 1,
		rd:    top >> 1,
		frame: t.queens(),
	}
	for r := 1; r <= n-2; r++ {
		allowed := inner
		switch r {
		case t.Left:
			allowed = 1
		case t.Right:
			allowed = 1 << uint(n-1)
		}
		// Queens below row r attack it along the diagonals going up; the
		// queens above are in ld, rd and cols during the search.
		for _, q := range fs.frame {
			if d := q.r - r; d > 0 {
				if c := q.c - d; c >= 0 {
					allowed &^= 1 << uint(c)
				}
				if c := q.c + d; c < n {
					allowed &^= 1 << uint(c)
				}
			}
		}
		fs.allowed = append(fs.allowed, allowed)
	}
	return fs
}

// orient picks, among the 8 images of a frame (which all have the same
// number of solutions), the one whose search is likely smallest. First, the
// bottom queen as near a corner as possible: its long diagonal then takes a
// square from nearly every row, and most from the top rows, where the
// search branches most. Then, the image whose frame takes the most squares
// from the rows searched first. On N=16 this makes counting 1.6 times as
// fast as searching the canonical image, and an oracle that tried all 8
// would visit only 6% fewer nodes.
func orient(t Task) Task {
	best, bestScore := t, 0
	for i, s := range Symmetries {
		img := t.image(s)
		score := orientScore(img)
		if i == 0 || score > bestScore || score == bestScore && img.key() < best.key() {
			best, bestScore = img, score
		}
	}
	return best
}

func orientScore(t Task) int {
	fs := newFrameSearch(t)
	inner := uint32(1)<<uint(t.N-1) - 2
	early, rows := 0, len(fs.allowed)
	for k, a := range fs.allowed {
		early += bits.OnesCount32(inner&^a) * (rows - k)
	}
	corner := min(t.Bottom, t.N-1-t.Bottom)
	return early - corner*1_000_000
}

// unguardedRows is how many rows at the bottom of a search run without
// checking for cancellation: a subtree of 12 rows takes milliseconds, so a
// cancelled count of N=27 stops at once, and the checks above it, on the
// few nodes of the top rows, cost nothing.
const unguardedRows = 12

// count returns the number of solutions with exactly this frame; it gives
// up, returning a partial count, when ctx is done.
func (fs *frameSearch) count(ctx context.Context) uint64 {
	if len(fs.allowed) < 4 {
		all, _, _ := fs.symmetricCounts() // N ≤ 5: a handful of nodes
		return all
	}
	return fs.countGuarded(ctx, 0, fs.cols, fs.ld, fs.rd)
}

func (fs *frameSearch) countGuarded(ctx context.Context, k int, cols, ld, rd uint32) uint64 {
	if k >= max(2, len(fs.allowed)-unguardedRows) || k+3 >= len(fs.allowed) {
		return fs.countFrom(k, cols, ld, rd)
	}
	avail := fs.allowed[k] &^ (cols | ld | rd)
	var total uint64
	for avail != 0 && ctx.Err() == nil {
		bit := avail & -avail
		avail ^= bit
		total += fs.countGuarded(ctx, k+1, cols|bit, (ld|bit)<<1, (rd|bit)>>1)
	}
	return total
}

// countFrom counts the completions from row index k (at least three rows
// before the last) without recursion: this loop is where counting spends
// nearly all its time. It looks one row ahead, so a queen that leaves the
// next row no square is never pushed, and it finishes the last two rows
// without a branch, where a search mostly mispredicts.
func (fs *frameSearch) countFrom(k int, cols, ld, rd uint32) uint64 {
	allowed := fs.allowed
	last := len(allowed) - 1
	lastAllowed := allowed[last]
	type frame struct{ avail, cols, ld, rd uint32 }
	var (
		stack [MaxSearchN]frame
		total uint64
		base  = k
		avail = allowed[k] &^ (cols | ld | rd)
	)
	for {
		if avail == 0 {
			if k == base {
				return total
			}
			k--
			f := &stack[k&(MaxSearchN-1)]
			avail, cols, ld, rd = f.avail, f.cols, f.ld, f.rd
			continue
		}
		bit := avail & -avail
		avail ^= bit
		ncols, nld, nrd := cols|bit, (ld|bit)<<1, (rd|bit)>>1
		next := allowed[k+1] &^ (ncols | nld | nrd)
		if k+2 == last {
			// Two rows left, and at most two free squares in the first
			// (only two columns are free): count the ways to finish
			// without a branch.
			b1 := next & -next
			b2 := next ^ b1
			c1 := lastAllowed &^ (ncols | b1 | (nld|b1)<<1 | (nrd|b1)>>1)
			c2 := lastAllowed &^ (ncols | b2 | (nld|b2)<<1 | (nrd|b2)>>1)
			total += uint64(nonZero(b1)&nonZero(c1) + nonZero(b2)&nonZero(c2))
			continue
		}
		// The next row, and the one after whatever the next takes, must
		// keep a free square: a cheap test that prunes most dead ends.
		if next == 0 || allowed[k+2]&^(ncols|nld<<1|nrd>>1) == 0 {
			continue
		}
		stack[k&(MaxSearchN-1)] = frame{avail, cols, ld, rd}
		cols, ld, rd, avail = ncols, nld, nrd, next
		k++
	}
}

// nonZero is 1 for x ≠ 0 and 0 for x = 0, without a branch.
func nonZero(x uint32) uint32 { return (x | -x) >> 31 }

// symmetricCounts counts the solutions with this frame, and among them
// those unchanged by a half turn and by a quarter turn. It records each
// solution, so it is used only for the few frames that have a symmetry.
func (fs *frameSearch) symmetricCounts() (all, half, quarter uint64) {
	p := make(Placement, fs.n)
	for _, q := range fs.frame {
		p[q.r] = q.c
	}
	var walk func(k int, cols, ld, rd uint32)
	walk = func(k int, cols, ld, rd uint32) {
		if k == len(fs.allowed) {
			all++
			if fixedByHalfTurn(p) {
				half++
				if fixedByQuarterTurn(p) {
					quarter++
				}
			}
			return
		}
		avail := fs.allowed[k] &^ (cols | ld | rd)
		for avail != 0 {
			bit := avail & -avail
			avail ^= bit
			p[k+1] = bits.TrailingZeros32(bit)
			walk(k+1, cols|bit, (ld|bit)<<1, (rd|bit)>>1)
		}
	}
	walk(0, fs.cols, fs.ld, fs.rd)
	return all, half, quarter
}
