package storetest

import (
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// testRankAndSolutionAt checks that solution #k and the rank of a
// placement agree with the solver's enumeration: for every solution of
// N=8, and every 13th of N=10, all and unique.
func testRankAndSolutionAt[TTx any](t *testing.T, b *bundle[TTx]) {
	Load(b.ctx, t, b.store, 8, solver.DefaultChunkDepth(8))
	// N=10 at depth 3 as well: more, smaller chunks, some of them empty.
	Load(b.ctx, t, b.store, 10, 3)
	for _, c := range []struct{ n, step int }{{8, 1}, {10, 13}} {
		for _, unique := range []bool{false, true} {
			all := enumerate(c.n, unique)
			for i := 0; i < len(all); i += c.step {
				checkRank(t, b, c.n, uint64(i+1), all[i], unique)
			}
			last := len(all) - 1
			checkRank(t, b, c.n, uint64(last+1), all[last], unique)

			_, err := b.store.SolutionAt(b.ctx, c.n, uint64(len(all)+1), unique)
			wantCode(t, err, nqueens.ENOTFOUND, "SolutionAt past the last")
		}
	}

	_, err := b.store.SolutionAt(b.ctx, 8, 0, false)
	wantCode(t, err, nqueens.EINVALID, "SolutionAt(rank 0)")
	_, err = b.store.Rank(b.ctx, 8, solver.Placement{0, 1, 2, 3, 4, 5, 6, 7}, false)
	wantCode(t, err, nqueens.ENOTFOUND, "Rank of a placement that is not a solution")
	_, err = b.store.Rank(b.ctx, 8, solver.Placement{0, 2, 4, 6, 1, 3, 5, 7}, false)
	wantCode(t, err, nqueens.ENOTFOUND, "Rank of a placement that is not a solution")
	all8 := enumerate(8, false)
	nonCanonical := all8[len(all8)-1] // its mirror image is smaller
	_, err = b.store.Rank(b.ctx, 8, nonCanonical, true)
	wantCode(t, err, nqueens.ENOTFOUND, "unique Rank of a non-canonical solution")
	_, err = b.store.Rank(b.ctx, 8, solver.Placement{0, 4, 7}, false)
	wantCode(t, err, nqueens.EINVALID, "Rank of a placement of the wrong length")
	_, err = b.store.Rank(b.ctx, 8, solver.Placement{0, 4, 7, 5, 2, 6, 1, 8}, false)
	wantCode(t, err, nqueens.EINVALID, "Rank of a placement with a column off the board")
	_, err = b.store.SolutionAt(b.ctx, 9, 1, false)
	wantCode(t, err, nqueens.ENOTFOUND, "SolutionAt of a board not stored")
}

// checkRank checks SolutionAt(rank) == p and Rank(p) == rank.
func checkRank[TTx any](t *testing.T, b *bundle[TTx], n int, rank uint64, p solver.Placement, unique bool) {
	t.Helper()
	s, err := b.store.SolutionAt(b.ctx, n, rank, unique)
	if err != nil {
		t.Fatalf("SolutionAt(%d, %d, unique=%t): %v", n, rank, unique, err)
	}
	checkSolution(t, s, n)
	if s.Placement.Compare(p) != 0 || s.Rank != rank {
		t.Fatalf("SolutionAt(%d, %d, unique=%t) = %v (rank %d), the solver's #%d is %v", n, rank, unique, s.Placement, s.Rank, rank, p)
	}
	got, err := b.store.Rank(b.ctx, n, p, unique)
	if err != nil || got != rank {
		t.Fatalf("Rank(%d, %v, unique=%t) = %d, %v; want %d", n, p, unique, got, err, rank)
	}
}
