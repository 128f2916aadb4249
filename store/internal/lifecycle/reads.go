package lifecycle

import (
	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// CheckStored says whether the solutions of board b can be read: it must
// store them and, when mustBeDone (ranks need the prefix sums written at
// the finish), be done. ENOTFOUND otherwise: the caller answers from the
// solver instead.
func CheckStored(b store.Board, mustBeDone bool) error {
	switch {
	case !b.StoresSolutions && b.State != store.Pending:
		return nqueens.Errorf(nqueens.ENOTFOUND, "N=%d keeps counts only; its solutions are not stored", b.N)
	case mustBeDone && b.State != store.Done:
		return nqueens.Errorf(nqueens.ENOTFOUND, "the solutions of N=%d are not stored yet (the board is %s)", b.N, b.State)
	case b.State == store.Pending:
		return nqueens.Errorf(nqueens.ENOTFOUND, "the solutions of N=%d are not stored yet (the board is pending)", b.N)
	}
	return nil
}

// CheckRankInRange checks that done board b has a solution #rank.
func CheckRankInRange(b store.Board, rank uint64, unique bool) error {
	total, what := b.Counts.Total, "solutions"
	if unique {
		total, what = b.Counts.Unique, "unique solutions"
	}
	if rank > total {
		return nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has %d %s; there is no #%d", b.N, total, what, rank)
	}
	return nil
}

// CheckRanked checks the lookup of placement p behind a rank: canonical is
// the stored row's flag, nil when p is not a stored solution.
func CheckRanked(n int, p solver.Placement, canonical *bool, unique bool) error {
	switch {
	case canonical == nil:
		return nqueens.Errorf(nqueens.ENOTFOUND, "%v is not a solution of N=%d", p, n)
	case unique && !*canonical:
		return nqueens.Errorf(nqueens.ENOTFOUND, "%v is not the canonical solution of its class (it is %v)", p, solver.Canonical(p))
	}
	return nil
}

// CheckSquareCountsKept says whether board b has statistics to read: it
// must be done, and its chunks must have listed their solutions (a board
// planned by tasks counts without listing them). ENOTFOUND otherwise.
func CheckSquareCountsKept(b store.Board) error {
	switch {
	case b.State != store.Done:
		return nqueens.Errorf(nqueens.ENOTFOUND, "the square counts of N=%d are known when the board is done (it is %s)", b.N, b.State)
	case b.Tasks:
		return nqueens.Errorf(nqueens.ENOTFOUND, "N=%d keeps counts only, counted by tasks that do not list solutions: it has no square counts", b.N)
	}
	return nil
}

// CheckSquareCounts checks the statistics read for done board b against
// its counts. Tables that do not add up belong to a board some chunks of
// which were written without them: before the store kept statistics
// (migration 7), or with their counts only. They are not known, ENOTFOUND.
func CheckSquareCounts(b store.Board, s solver.SquareCounts) error {
	if b.Counts == nil {
		return nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has no counts", b.N)
	}
	if err := s.Check(*b.Counts); err != nil {
		return nqueens.Errorf(nqueens.ENOTFOUND, "the square counts of N=%d are not known: some of its chunks were written without them, before the store kept them (schema version 7) or as counts only (%v)", b.N, err)
	}
	return nil
}

// CheckFilteredCountDone says whether the chunks of count fc can be read:
// their prefix sums mean something only once every chunk is counted.
// ENOTFOUND otherwise, saying how far it is.
func CheckFilteredCountDone(fc store.FilteredCount) error {
	switch fc.State {
	case store.Done:
		return nil
	case store.Failed:
		return nqueens.Errorf(nqueens.ENOTFOUND, "the count of N=%d under %q failed with %d of %d chunks counted: %s", fc.N, fc.Filter, fc.ChunksDone, fc.ChunksTotal, fc.LastError)
	}
	return nqueens.Errorf(nqueens.ENOTFOUND, "the count of N=%d under %q is %s: %d of %d chunks counted", fc.N, fc.Filter, fc.State, fc.ChunksDone, fc.ChunksTotal)
}
