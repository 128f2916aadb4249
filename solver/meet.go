package solver

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// The meet in the middle: a frame search stops h rows above its end, at
// the meeting row, and counts the completions of each node there from a
// table of the placements of the h rows below instead of walking those
// rows again, node after node. The placements of those rows depend only
// on the frame queens held in them, left and right ones (meetKey), which
// many tasks share: a worker enumerates them once per key (the base),
// keeps those a bottom queen leaves once per bottom queen (tasks are
// counted in that order, meetOrder), and for each task those its frame
// queens above the meeting row leave (the table, indexed by columns).
// At a node of the meeting row, the columns left free name the only
// placements that can complete it, and one AND per placement tells
// whether its diagonals miss the node's.
//
// A placement is kept as the diagonals its queens occupy in the meeting
// row: a queen k rows below it in column c occupies the left diagonal
// (going down to the right) that is in column c-k there, and the right
// diagonal in column c+k. The left ones are kept in the low 32 bits,
// moved up by meetShift so that columns down to -meetShift fit, and the
// right ones in the high 32 bits. The bottom queen's diagonals, which
// cross the meeting row's line outside the board, are kept the same way.

// meetShift moves the left diagonals up in a placement's word: a queen
// of the table is at most 7 rows below the meeting row (h ≤ 6 rows and
// two frame rows between them), so its left diagonal is in column -6 or
// more there.
const meetShift = 8

// meetMaxN is the largest N counted with tables: a table's index has a
// slot per set of inner columns, 2^(N-2) of them (2 MiB at N=20), and a
// placement's diagonals, up to column N-2+7 and, moved up, N-2+8, fit in
// 32 bits each.
const meetMaxN = 20

// meetRows is how many rows a table of N holds, 0 for none: below 16 a
// table costs more than it saves (docs/PERFORMANCE.md, "The counter
// against NQueensFAF", has the measurements).
func meetRows(n int) int {
	switch {
	case n > meetMaxN:
		return 0
	case n >= 17:
		return 6
	case n == 16:
		return 5
	}
	return 0
}

// countMeeting counts the search with the table of its lowest h rows.
func (fs *frameSearch) countMeeting(ctx context.Context, h int) uint64 {
	c := getMeetCache(fs.n)
	key, bottom, upper := fs.meetOf(h)
	fs.meet, fs.meetRows = c.tableFor(key, bottom, upper, fs.searchedColumns()), h
	total := fs.countGuarded(ctx, fs.last(), 0, 0, 0)
	fs.meet = nil
	meetCaches.Put(c)
	return total
}

// meetKey names a base: the board, the rows of the table, and the frame
// queens held in them (left and right queens; the rest of queens is
// {0, 0}, a square no such queen holds).
type meetKey struct {
	n, h, meet int
	queens     [2]square
}

// meetOf returns the key of fs's table of h rows, the bottom queen's
// column, and the diagonals the frame queens above the meeting row
// occupy in it, as a placement holds its own.
func (fs *frameSearch) meetOf(h int) (key meetKey, bottom int, upper uint64) {
	n := fs.n
	m := fs.rows[fs.last()-(h-1)]
	key = meetKey{n: n, h: h, meet: m}
	i := 0
	for _, q := range fs.frame.list() {
		switch {
		case q.r == n-1:
			bottom = q.c
		case q.r >= m:
			key.queens[i] = q
			i++
		default:
			upper |= diagonalsAt(q, m)
		}
	}
	return key, bottom, upper
}

// diagonalsAt returns the diagonals the queen q occupies in row m, as a
// placement's word holds them, leaving out those outside the word, which
// no placement occupies.
func diagonalsAt(q square, m int) uint64 {
	k := m - q.r // q is k rows above m, or -k below
	var w uint64
	if c := q.c + k + meetShift; c >= 0 && c < 32 {
		w |= 1 << uint(c)
	}
	if c := q.c - k; c >= 0 && c < 32 {
		w |= 1 << uint(32+c)
	}
	return w
}

// rank orders tasks: those counted in this order share bases, and those
// with the same bottom queen tables.
func (k meetKey) rank(bottom int) uint64 {
	r := uint64(k.n)<<5 | uint64(k.h)
	r = r<<5 | uint64(k.meet)
	for _, q := range k.queens {
		r = r<<10 | uint64(q.r)<<5 | uint64(q.c)
	}
	return r<<5 | uint64(bottom)
}

// meetOrder returns the order in which to count tasks: by their tables'
// keys and bottom queens, so that a worker builds each base and table
// once. Tasks counted without a table come first.
func meetOrder(tasks []Task) []int {
	order := make([]int, len(tasks))
	ranks := make([]uint64, len(tasks))
	for i, t := range tasks {
		order[i] = i
		h := meetRows(t.N)
		if t.whole() || h == 0 {
			continue
		}
		if _, half, _ := t.stabilizer(); half {
			continue
		}
		if fs := orient(t); fs.last() >= h+3 {
			key, bottom, _ := fs.meetOf(h)
			ranks[i] = key.rank(bottom)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ranks[a], ranks[b]) })
	return order
}

// meetRuns are placements grouped by the columns they take: run i's
// placements take the columns cols[i] << 1 and are entries[ends[i-1]:ends[i]].
type meetRuns struct {
	cols    []uint32
	ends    []uint32
	entries []uint64
}

// filter sets r to the placements of from that miss mask and take
// only columns of cols (>> 1), in runs.
func (r *meetRuns) filter(from *meetRuns, mask uint64, cols uint32) {
	r.cols, r.ends = r.cols[:0], r.ends[:0]
	r.entries = slices.Grow(r.entries[:0], len(from.entries))[:len(from.entries)]
	out, begin := uint32(0), uint32(0)
	for i, end := range from.ends {
		if from.cols[i]&^cols != 0 {
			begin = end
			continue
		}
		start := out
		for _, e := range from.entries[begin:end] {
			r.entries[out] = e
			out += uint32((e&mask - 1) >> 63)
		}
		begin = end
		if out > start {
			r.cols = append(r.cols, from.cols[i])
			r.ends = append(r.ends, out)
		}
	}
	r.entries = r.entries[:out]
}

// meetTable is the placements a task's frame leaves, indexed by their
// columns.
type meetTable struct {
	// slot by the set of columns >> 1: the end of its placements in
	// entries plus one in the high 32 bits, their number in the low 32;
	// 0 for a set no placement takes.
	slot    []uint64
	entries []uint64
	used    []uint32 // the slots set
}

// meetCache is a worker's tables: the placements of a key (base), those
// of them that a bottom queen leaves (bottomed), and those a task's
// frame leaves.
type meetCache struct {
	n        int
	key      meetKey
	bottom   int
	base     meetRuns
	bottomed meetRuns
	table    meetTable
	keys     []uint32 // scratch for build: each placement's set of columns >> 1
	found    []uint64 // scratch for build: each placement's word
}

var meetCaches sync.Pool

func getMeetCache(n int) *meetCache {
	if c, ok := meetCaches.Get().(*meetCache); ok && c.n == n {
		return c
	}
	return &meetCache{n: n, key: meetKey{n: -1}, table: meetTable{slot: make([]uint64, 1<<uint(n-2))}}
}

// tableFor returns the table of a task with key and bottom queen whose
// frame queens above the meeting row occupy the diagonals upper there and
// whose searched rows take the columns all. Only placements that take
// columns of all are kept: the others are never asked for.
func (c *meetCache) tableFor(key meetKey, bottom int, upper uint64, all uint32) *meetTable {
	t := &c.table
	for _, k := range t.used {
		t.slot[k] = 0
	}
	t.used = t.used[:0]
	if c.key != key {
		c.build(key) // with the cleared index as scratch
		c.key, c.bottom = key, -1
	}
	if c.bottom != bottom {
		inner := uint32(1)<<uint(key.n-1) - 2
		c.bottomed.filter(&c.base, diagonalsAt(square{key.n - 1, bottom}, key.meet), (inner&^(1<<uint(bottom)))>>1)
		c.bottom = bottom
	}
	from := &c.bottomed
	t.entries = slices.Grow(t.entries[:0], len(from.entries))[:len(from.entries)]
	out, begin := uint32(0), uint32(0)
	for i, end := range from.ends {
		if from.cols[i]&^(all>>1) != 0 {
			begin = end
			continue
		}
		start := out
		for _, e := range from.entries[begin:end] {
			t.entries[out] = e
			out += uint32((e&upper - 1) >> 63)
		}
		begin = end
		if out > start {
			k := from.cols[i]
			t.slot[k] = uint64(out+1)<<32 | uint64(out-start)
			t.used = append(t.used, k)
		}
	}
	return t
}

// build fills the cache's base with the placements of the rows of key:
// the h searched rows from its meeting row down, with the squares its
// left and right queens attack taken out. The index of the cache's table
// must be clear.
func (c *meetCache) build(key meetKey) {
	n, h := key.n, key.h
	c.keys, c.found = c.keys[:0], c.found[:0]
	var rows [MaxSearchN]int
	var below [MaxSearchN]uint32
	inner := uint32(1)<<uint(n-1) - 2
	d := h - 1
	for r := key.meet; d >= 0; r++ {
		if r == key.queens[0].r || r == key.queens[1].r {
			continue // a held row (or row 0, which is never one of these)
		}
		rows[d] = r
		allowed := inner
		for _, q := range key.queens {
			if q.r == 0 {
				continue // no queen
			}
			dist := q.r - r
			allowed &^= 1<<uint(q.c) | 1<<uint(q.c+dist)
			if c := q.c - dist; c >= 0 {
				allowed &^= 1 << uint(c)
			}
		}
		below[d] = allowed & inner
		d--
	}
	meet := key.meet
	var walk func(d int, cols, ld, rd uint32, word uint64)
	walk = func(d int, cols, ld, rd uint32, word uint64) {
		if d < 0 {
			c.keys = append(c.keys, cols>>1)
			c.found = append(c.found, word)
			return
		}
		avail := below[d] &^ (cols | ld | rd)
		k := uint(rows[d] - meet)
		s := uint(0)
		if d > 0 {
			s = uint(rows[d-1]-rows[d]) & 31
		}
		for avail != 0 {
			bit := avail & -avail
			avail ^= bit
			w := word | uint64(bit<<meetShift>>k) | uint64(bit)<<(32+k)
			walk(d-1, cols|bit, (ld|bit)<<s, (rd|bit)>>s, w)
		}
	}
	walk(h-1, 0, 0, 0, 0)

	// A counting sort by the set of columns, with the table's index
	// mapping a set to 1 + its run's number.
	slot := c.table.slot
	r := &c.base
	r.cols = r.cols[:0]
	for _, k := range c.keys {
		if slot[k] == 0 {
			r.cols = append(r.cols, k)
			slot[k] = uint64(len(r.cols))
		}
	}
	r.ends = slices.Grow(r.ends[:0], len(r.cols))[:len(r.cols)]
	clear(r.ends)
	for _, k := range c.keys {
		r.ends[slot[k]-1]++
	}
	sum := uint32(0)
	for i, n := range r.ends {
		r.ends[i] = sum // the run's start, advanced as it is filled
		sum += n
	}
	r.entries = slices.Grow(r.entries[:0], len(c.found))[:len(c.found)]
	for i, k := range c.keys {
		at := &r.ends[slot[k]-1]
		r.entries[*at] = c.found[i]
		*at++
	}
	for _, k := range r.cols {
		slot[k] = 0
	}
}

// matches counts the placements taking the columns free whose diagonals
// miss q, those the rows above occupy in the meeting row.
func (t *meetTable) matches(free uint32, q uint64) uint64 {
	s := t.slot[free>>1]
	if s == 0 {
		return 0
	}
	end := uint32(s>>32) - 1
	var total uint64
	for _, e := range t.entries[end-uint32(s) : end] {
		total += (e&q - 1) >> 63
	}
	return total
}

// searchedColumns are the columns the searched rows' queens take: the
// inner ones no frame queen holds.
func (fs *frameSearch) searchedColumns() uint32 {
	cols := uint32(1)<<uint(fs.n-1) - 2
	for _, q := range fs.frame.list() {
		cols &^= 1 << uint(q.c)
	}
	return cols
}

// countMeet is countFrom with the rows from the table's meeting row down
// counted from the table: it places the rows above (d ≥ h, with the same
// look-ahead) and at each node of row h asks the table.
func (fs *frameSearch) countMeet(m *meetTable, h int, d int, cols, ld, rd uint32) uint64 {
	below, shift := fs.below, fs.shift
	all := fs.searchedColumns()
	nmask := uint32(1)<<uint(fs.n) - 1
	type frame struct {
		avail, cols, ld, rd uint32
		d                   int
	}
	var (
		stack [MaxSearchN]frame
		sp    = 1
		total uint64
		avail = below[d&(MaxSearchN-1)] &^ (cols | ld | rd)
	)
	for avail != 0 {
		fs.loop.step(d, sp)
		bit := avail & -avail
		avail ^= bit
		s := shift[d&(MaxSearchN-1)] & 31
		ncols, nld, nrd := cols|bit, (ld|bit)<<s, (rd|bit)>>s
		next := below[(d-1)&(MaxSearchN-1)] &^ (ncols | nld | nrd)
		if next != 0 {
			if d > h {
				s2 := shift[(d-1)&(MaxSearchN-1)] & 31
				if below[(d-2)&(MaxSearchN-1)]&^(ncols|nld<<s2|nrd>>s2) != 0 {
					f := &stack[sp&(MaxSearchN-1)]
					f.avail, f.cols, f.ld, f.rd, f.d = avail, cols, ld, rd, d
					sp += int(nonZero(avail))
					cols, ld, rd, avail = ncols, nld, nrd, next
					d--
					continue
				}
			} else {
				fs.loop.lookup()
				total += m.matches(all&^ncols, uint64(nld&nmask)<<meetShift|uint64(nrd)<<32)
			}
		}
		if avail == 0 {
			sp--
			f := &stack[sp&(MaxSearchN-1)]
			avail, cols, ld, rd, d = f.avail, f.cols, f.ld, f.rd, f.d
		}
	}
	return total
}
