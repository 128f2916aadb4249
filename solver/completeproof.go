package solver

import "fmt"

// starvedLine looks for the cheap proof that a large board cannot be
// completed: a row without a pinned queen whose every square is blocked
// or attacked by a pinned queen, or such a column. f is normal and free
// of contradictions. It takes time proportional to the free rows and
// columns times the pinned queens, plus the blocked squares: a step of g
// per pinned queen looked at, so that many pinned queens on a large board
// stay within the budget (false when g stopped it).
func (f Filter) starvedLine(n int, g *gauge) (Completion, bool) {
	if r, ok := starvedRow(n, f.Queens, f.Empty, g); ok {
		return Completion{State: Impossible, Reason: fmt.Sprintf("row %d has no square left: each is blocked or attacked by a pinned queen", r)}, true
	}
	// Columns are the rows of the transposed board.
	flip := func(s []Square) []Square {
		t := make([]Square, len(s))
		for i, q := range s {
			t[i] = Square{Row: q.Col, Col: q.Row}
		}
		return t
	}
	if c, ok := starvedRow(n, flip(f.Queens), flip(f.Empty), g); ok {
		return Completion{State: Impossible, Reason: fmt.Sprintf("column %d has no square left: each is blocked or attacked by a pinned queen", c)}, true
	}
	return Completion{}, false
}

// starvedRow returns a row without a queen that has no square left.
func starvedRow(n int, queens, empty []Square, g *gauge) (int, bool) {
	pinned := make([]bool, n)
	for _, q := range queens {
		pinned[q.Row] = true
	}
	blockedIn := make([][]int, n)
	for _, e := range empty {
		blockedIn[e.Row] = append(blockedIn[e.Row], e.Col)
	}
	// Each pinned queen takes at most 3 squares of a row: only rows where
	// those and the blocked ones could add up to n need counting.
	stamp := make([]int32, n)
	for r := range n {
		if pinned[r] || 3*len(queens)+len(blockedIn[r]) < n {
			continue
		}
		gone := 0
		take := func(c int) {
			if c >= 0 && c < n && stamp[c] != int32(r+1) {
				stamp[c] = int32(r + 1)
				gone++
			}
		}
		for _, q := range queens {
			if !g.step() {
				return 0, false
			}
			d := r - q.Row
			take(q.Col)
			take(q.Col + d)
			take(q.Col - d)
		}
		for _, c := range blockedIn[r] {
			take(c)
		}
		if gone == n {
			return r, true
		}
	}
	return 0, false
}
