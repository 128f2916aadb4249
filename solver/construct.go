package solver

import "fmt"

// Solve returns one solution for an N×N board without any search, so that
// boards far beyond MaxSearchN (a million rows take milliseconds) still get
// an answer. It uses the classic explicit construction (Hoffman, Loessi and
// Moore, 1969; the form given in Wikipedia's "Eight queens puzzle" article):
// list the even numbers 2, 4, … ≤ N and then the odd ones 1, 3, …, except
// that for N mod 6 = 2 the odd list starts 3, 1 and moves 5 to its end, and
// for N mod 6 = 3 the even list moves 2 to its end and the odd list moves
// 1, 3 to its end; the k-th number is the rank of the queen on the k-th
// file, in Chess' convention (Solve(8).Chess() is "a2 b4 c6 d8 e3 f1 g7
// h5"). N = 2 and N = 3 have no solution and N < 1 no board: both are
// errors. It runs in O(N) time and allocates only the placement.
func Solve(n int) (Placement, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("solver: N must be at least 1, got %d", n)
	case n == 2 || n == 3:
		return nil, fmt.Errorf("solver: N=%d has no solution (every N ≥ 1 except 2 and 3 has one)", n)
	}
	// Files are filled left to right; the queen on rank k of a file stands
	// in row n-k.
	p := make(Placement, n)
	file := 0
	put := func(k int) {
		p[n-k] = file
		file++
	}
	every2 := func(from int) { // from, from+2, … ≤ n
		for k := from; k <= n; k += 2 {
			put(k)
		}
	}
	switch n % 6 {
	case 2: // 2, 4, …; then 3, 1, 7, 9, …, 5
		every2(2)
		put(3)
		put(1)
		every2(7)
		put(5)
	case 3: // 4, 6, …, 2; then 5, 7, …, 1, 3
		every2(4)
		put(2)
		every2(5)
		put(1)
		put(3)
	default: // 2, 4, …; then 1, 3, …
		every2(2)
		every2(1)
	}
	return p, nil
}
