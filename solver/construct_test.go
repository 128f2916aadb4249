package solver_test

import (
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestSolve checks the construction against ValidateN for every N up to
// 2000 and for two boards of about a million rows.
func TestSolve(t *testing.T) {
	t.Parallel()
	check := func(n int) {
		p, err := solver.Solve(n)
		if n == 2 || n == 3 {
			if err == nil || p != nil {
				t.Errorf("Solve(%d) = %v, %v; want no placement and an error", n, p, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Solve(%d): %v", n, err)
		}
		if err := solver.ValidateN(n, p); err != nil {
			t.Fatalf("Solve(%d) is not a solution: %v", n, err)
		}
	}
	for n := 1; n <= 2000; n++ {
		check(n)
	}
	check(1_000_000)
	check(999_999)
	for _, n := range []int{0, -1, -1 << 40} {
		if p, err := solver.Solve(n); err == nil {
			t.Errorf("Solve(%d) = %v, want an error", n, p)
		}
	}
}

// TestSolveSmallIsKnown checks that for small N the construction lands on
// a solution the search also finds.
func TestSolveSmallIsKnown(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 10; n++ {
		p, err := solver.Solve(n)
		if err != nil {
			continue
		}
		found := false
		for q := range solver.All(n) {
			if q.Compare(p) == 0 {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("Solve(%d) = %v is not among the solutions All lists", n, p)
		}
	}
}

// TestSolveAllocates checks the documented cost: one allocation, the
// placement itself.
func TestSolveAllocates(t *testing.T) {
	if allocs := testing.AllocsPerRun(5, func() { _, _ = solver.Solve(1000) }); allocs != 1 {
		t.Errorf("Solve(1000) allocates %v times, want 1", allocs)
	}
}

func BenchmarkSolveMillion(b *testing.B) {
	for b.Loop() {
		if p, err := solver.Solve(1_000_000); err != nil || len(p) != 1_000_000 {
			b.Fatalf("Solve(1,000,000): %d rows, %v", len(p), err)
		}
	}
}
