package solver

import "testing"

// TestSearchTablesFitTheLoopsMasks checks what countFrom's masks rely on,
// for every board the search takes and every rows its frame's left and
// right queens can hold (the rows are all that shapes the tables' indexes
// and shifts): the first searched row, and so every d and the stack's
// depth, is below MaxSearchN, so d&(MaxSearchN-1) is d; every shift
// between searched rows is 1 to 3, so s&31 is s and the two-row ending's
// shift of two rows is at most 6.
func TestSearchTablesFitTheLoopsMasks(t *testing.T) {
	t.Parallel()
	for n := 4; n <= MaxSearchN; n++ {
		for left := range n {
			for right := range n {
				task := Task{N: n, Top: 1, Bottom: n - 2, Left: left, Right: right}
				fs := newFrameSearch(task)
				if fs.last() >= MaxSearchN {
					t.Fatalf("%v: first searched row d=%d, beyond %d", task, fs.last(), MaxSearchN-1)
				}
				if fs.last() < 0 {
					continue // no row to search: a board of 4 with both middle rows held
				}
				rows := 0
				for d := 1; d <= fs.last(); d++ {
					if s := fs.shift[d]; s < 1 || s > 3 {
						t.Fatalf("%v: shift[%d] = %d, outside 1..3", task, d, s)
					}
					rows += int(fs.shift[d])
				}
				// The shifts span the searched rows from the first to the last.
				if first, last := fs.rows[0], fs.rows[fs.last()]; rows != last-first {
					t.Fatalf("%v: shifts add up to %d rows, the searched rows span %d..%d", task, rows, first, last)
				}
			}
		}
	}
}
