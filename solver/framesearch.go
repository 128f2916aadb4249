package solver

import (
	"context"
	"math"
	"math/bits"
)

// frameSearch is a task prepared for the bitboard search. Only the rows
// without a frame queen are searched (the frame's left and right queens
// hold two rows, the top and bottom queens the first and last): every
// square a frame queen attacks is taken out of those rows' masks before
// the search, so the search starts from an empty board and never spends a
// node on a row whose queen is known. Between two searched rows the
// diagonals shift by the rows' distance: 1, or 2 or 3 across frame rows.
//
// The searched rows are numbered by how many searched rows lie below them
// (d, from last down to 0), as the counting loop walks them.
type frameSearch struct {
	loop     loopTally // the counting loop's steps, kept only in builds tagged loopsteps
	n        int
	nrows    int
	rows     [MaxSearchN]int    // the searched rows, top to bottom: rows[last-d]
	below    [MaxSearchN]uint32 // below[d]: the squares of row d no frame queen attacks
	shift    [MaxSearchN]uint32 // shift[d]: rows from row d to row d-1 (1 to 3)
	frame    frameQueens
	meet     *meetTable // while countMeeting runs: the table of the lowest rows
	meetRows int        // the rows meet holds
}

func newFrameSearch(t Task) *frameSearch {
	fs := new(frameSearch)
	fs.init(t)
	return fs
}

// init prepares the search of t in place (orient tries eight in one).
func (fs *frameSearch) init(t Task) {
	n := t.N
	inner := uint32(1)<<uint(n-1) - 2 // columns 1..N-2
	*fs = frameSearch{n: n, frame: t.queens()}
	for r := 1; r <= n-2; r++ {
		if r != t.Left && r != t.Right {
			fs.rows[fs.nrows] = r
			fs.nrows++
		}
	}
	last := fs.last()
	for i, r := range fs.rows[:fs.nrows] {
		allowed := inner
		for _, q := range fs.frame.list() {
			d := max(q.r-r, r-q.r)
			allowed &^= 1<<uint(q.c) | 1<<uint(q.c+d)
			if c := q.c - d; c >= 0 {
				allowed &^= 1 << uint(c)
			}
		}
		fs.below[last-i] = allowed & inner
		if i < last {
			fs.shift[last-i] = uint32(fs.rows[i+1] - r)
		}
	}
}

// last is the d of the first searched row: one less than their number.
func (fs *frameSearch) last() int { return fs.nrows - 1 }

// orient picks, among the 8 images of a frame (which all have the same
// number of solutions), the one whose search is likely smallest, and
// returns its search. The choice is made by predictedCost, a model of how
// a search's size follows from where the frame takes its squares.
func orient(t Task) *frameSearch {
	best, cand := new(frameSearch), new(frameSearch)
	var bestImg Task
	bestCost := 0.0
	for i, s := range Symmetries {
		img := t.image(s)
		cand.init(img)
		cost := cand.predictedCost(img)
		if i == 0 || cost < bestCost || cost == bestCost && img.key() < bestImg.key() {
			best, cand = cand, best
			bestImg, bestCost = img, cost
		}
	}
	return best
}

// orientWeights weigh orientFeatures in predictedCost. They were fitted
// by least squares to the logarithm of the counting loop's steps for each
// of the 8 images of every task of N=15 (go test ./solver -run
// TestFitOrientation -fit-orientation fits and prints them again;
// TestOrientationNearOracle bounds how far their choice is from the best
// image). A search is smaller when its first rows keep few squares, where
// it branches most, and, less obviously, when its last rows keep many:
// the look-ahead then cuts dead ends a row earlier.
var orientWeights = [orientFeatureCount]float64{
	0.330, 0.551, 0.612, 0.548, 0.371, 0.130, // first six rows
	-0.679, -0.638, -0.481, -0.323, // last four rows, d = 0..3
	0.034, 0.016, // bottom and top queen's distance to a corner
	-0.024, -0.010, // first and second frame row
}

const orientFeatureCount = 14

// orientFeatures describes an image's search for predictedCost: the
// logarithm of one plus the squares kept by each of the first six
// searched rows and by each of the last four, the bottom and top queens'
// distances to a corner, and the rows of the left and right queens, the
// upper one first. Rows a small board lacks count as 0.
func (fs *frameSearch) orientFeatures(t Task) [orientFeatureCount]float64 {
	var f [orientFeatureCount]float64
	kept := func(d int) float64 { return math.Log(float64(bits.OnesCount32(fs.below[d])) + 1) }
	for i := range 6 {
		if d := fs.last() - i; d >= 0 {
			f[i] = kept(d)
		}
	}
	for d := range 4 {
		if d <= fs.last() {
			f[6+d] = kept(d)
		}
	}
	n := t.N
	f[10], f[11] = float64(min(t.Bottom, n-1-t.Bottom)), float64(min(t.Top, n-1-t.Top))
	f[12], f[13] = float64(min(t.Left, t.Right)), float64(max(t.Left, t.Right))
	return f
}

// predictedCost is the model's logarithm of the search's size, up to a
// constant shared by the 8 images of a frame.
func (fs *frameSearch) predictedCost(t Task) float64 {
	cost := 0.0
	for i, x := range fs.orientFeatures(t) {
		cost += orientWeights[i] * x
	}
	return cost
}

// unguardedRows is how many rows at the bottom of a search run without
// checking for cancellation: a subtree of 12 rows takes milliseconds, so a
// cancelled count of N=27 stops at once, and the checks above it, on the
// few nodes of the top rows, cost nothing.
const unguardedRows = 12

// count returns the number of solutions with exactly this frame; it gives
// up, returning a partial count, when ctx is done. With tables, boards
// from 16 to meetMaxN count their lowest rows from a table (meet.go).
func (fs *frameSearch) count(ctx context.Context, tables bool) uint64 {
	if fs.nrows < 5 {
		var all uint64 // N ≤ 8: a handful of nodes
		fs.walk(false, func(Placement) { all++ })
		return all
	}
	if h := meetRows(fs.n); tables && h > 0 && fs.last() >= h+3 {
		return fs.countMeeting(ctx, h)
	}
	return fs.countGuarded(ctx, fs.last(), 0, 0, 0)
}

func (fs *frameSearch) countGuarded(ctx context.Context, d int, cols, ld, rd uint32) uint64 {
	// The two top rows are always guarded; the rest from the bottom
	// unguardedRows rows up, and from row 3 (the loop's least) run
	// unguarded.
	if d <= 3 || d <= min(fs.last()-2, unguardedRows-1) {
		if fs.meet != nil {
			return fs.countMeet(fs.meet, fs.meetRows, d, cols, ld, rd)
		}
		return fs.countFrom(d, cols, ld, rd)
	}
	avail := fs.below[d] &^ (cols | ld | rd)
	s := fs.shift[d] & 31
	var total uint64
	for avail != 0 && ctx.Err() == nil {
		bit := avail & -avail
		avail ^= bit
		total += fs.countGuarded(ctx, d-1, cols|bit, (ld|bit)<<s, (rd|bit)>>s)
	}
	return total
}

// countFrom counts the completions from searched row d (3 or more)
// without recursion: this loop is where counting spends nearly all its
// time, except for CountTasks of N=16 to 20, which counts with countMeet
// (meet.go). It looks one row ahead, so a queen that leaves the next row no
// square is never pushed, and it finishes the last two rows without a
// branch, where a search mostly mispredicts.
//
// The rows' tables are copied to the stack frame, where the loop reads
// them without bounds checks, and the test for the last rows compares d
// with a constant. A node whose last square is being tried is not kept on
// the stack (it is written, and dropped by not moving the stack pointer,
// without a branch): when its child is done, the search goes straight
// back to the nearest node with squares left, and tries its next square
// in the same step.
//
// Every index is masked with MaxSearchN-1 and every shift with 31. The
// masks change no value the loop meets (d and the stack depth stay below
// MaxSearchN, a shift is 1 to 3 rows: TestSearchTablesFitTheLoopsMasks,
// and the loopsteps build checks each step), but they prove to the
// compiler that each index is in bounds and each shift below 32, so that
// it emits no check for either. The constants after the function assert
// what the masks need of MaxSearchN.
func (fs *frameSearch) countFrom(d int, cols, ld, rd uint32) uint64 {
	below, shift := fs.below, fs.shift
	type frame struct {
		avail, cols, ld, rd uint32
		d                   int
	}
	var (
		stack     [MaxSearchN]frame
		sp        = 1 // frames kept, above stack[0]: a node with no square, where the search ends
		total     uint64
		avail     = below[d&(MaxSearchN-1)] &^ (cols | ld | rd)
		lastShift = shift[1] & 31
	)
	for avail != 0 {
		fs.loop.step(d, sp)
		bit := avail & -avail
		avail ^= bit
		s := shift[d&(MaxSearchN-1)] & 31
		ncols, nld, nrd := cols|bit, (ld|bit)<<s, (rd|bit)>>s
		next := below[(d-1)&(MaxSearchN-1)] &^ (ncols | nld | nrd)
		s2 := shift[(d-1)&(MaxSearchN-1)] & 31
		var after uint32
		if next != 0 {
			after = below[(d-2)&(MaxSearchN-1)] &^ (ncols | nld<<s2 | nrd>>s2)
		}
		if after != 0 {
			// The next row, and the one after whatever the next takes,
			// keep a free square (a cheap test that prunes most dead
			// ends).
			if d > 3 {
				// Go down. The child has a square, so the loop's test
				// holds.
				f := &stack[sp&(MaxSearchN-1)]
				f.avail, f.cols, f.ld, f.rd, f.d = avail, cols, ld, rd, d
				sp += int(nonZero(avail))
				cols, ld, rd, avail = ncols, nld, nrd, next
				d--
				continue
			}
			// The child has two rows below it: finish it here. after
			// is what row 1 keeps, last what row 0 keeps, before the
			// child's queen; each of the child's squares leaves at most
			// two in row 1 (two columns are free), and each of those
			// at most one in row 0: count the ways without a branch.
			t := (s2 + lastShift) & 31
			last := below[0] &^ (ncols | nld<<t | nrd>>t)
			for next != 0 {
				fs.loop.ending()
				b := next & -next
				next ^= b
				n1 := after &^ (b | b<<s2 | b>>s2)
				n0 := last &^ (b | b<<t | b>>t)
				b1 := n1 & -n1
				b2 := n1 ^ b1
				c1 := n0 &^ (b1 | b1<<lastShift | b1>>lastShift)
				c2 := n0 &^ (b2 | b2<<lastShift | b2>>lastShift)
				total += uint64(nonZero(b1)&nonZero(c1) + nonZero(b2)&nonZero(c2))
			}
		}
		if avail == 0 {
			// Back to the nearest node with a square left.
			sp--
			f := &stack[sp&(MaxSearchN-1)]
			avail, cols, ld, rd, d = f.avail, f.cols, f.ld, f.rd, f.d
		}
	}
	return total
}

// countFrom's masks need MaxSearchN to be a power of two, so that
// d&(MaxSearchN-1) is d for every d below it, and no more than the 32 bits
// of a row's mask. Each constant below fails to compile otherwise: a
// negative constant is not a uint.
const (
	_ = -uint(MaxSearchN & (MaxSearchN - 1)) // MaxSearchN is a power of two
	_ = uint(32 - MaxSearchN)                // MaxSearchN ≤ 32
)

// nonZero is 1 for x ≠ 0 and 0 for x = 0, without a branch.
func nonZero(x uint32) uint32 { return (x | -x) >> 31 }

// halfTurnCounts counts the solutions with this frame that a half turn
// leaves as they are, and among them those a quarter turn leaves as they
// are. Only placements of that shape are searched: below the middle, a
// row's queen is the mirror image of its partner row's, which is already
// placed, so the search is about as small as one of half the rows.
func (fs *frameSearch) halfTurnCounts() (half, quarter uint64) {
	fs.walk(true, func(p Placement) {
		half++
		if fixedByQuarterTurn(p) {
			quarter++
		}
	})
	return half, quarter
}

// walk calls visit with each solution with this frame, or with halfTurn
// each one a half turn leaves as it is. It serves only small searches.
func (fs *frameSearch) walk(halfTurn bool, visit func(Placement)) {
	n := fs.n
	p := make(Placement, n)
	for _, q := range fs.frame.list() {
		p[q.r] = q.c
	}
	var search func(d int, cols, ld, rd uint32)
	search = func(d int, cols, ld, rd uint32) {
		if d < 0 {
			visit(p)
			return
		}
		r := fs.rows[fs.last()-d]
		avail := fs.below[d] &^ (cols | ld | rd)
		if halfTurn && 2*r >= n-1 {
			// The middle row's queen stays put only in the middle
			// column; a lower row's partner, above it, is placed.
			mirror := (n - 1) / 2
			if 2*r > n-1 {
				mirror = n - 1 - p[n-1-r]
			}
			avail &= 1 << uint(mirror)
		}
		s := fs.shift[d] & 31
		for avail != 0 {
			bit := avail & -avail
			avail ^= bit
			p[r] = bits.TrailingZeros32(bit)
			search(d-1, cols|bit, (ld|bit)<<s, (rd|bit)>>s)
		}
	}
	search(fs.last(), 0, 0, 0)
}
