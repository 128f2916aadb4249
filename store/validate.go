package store

import (
	"unicode/utf8"

	"github.com/nqueens/nqueens/solver"
)

// The checks both backends run on their arguments before touching the
// database, so that bad input is EINVALID with the same message on both.

// CheckN checks a board size.
func CheckN(n int) error {
	if n < 1 || n > solver.MaxSearchN {
		return Errorf(EINVALID, "N must be between 1 and %d, got %d", solver.MaxSearchN, n)
	}
	return nil
}

// CheckPlacement checks that p has N columns, each within 0..N-1. It does
// not check that p is a solution.
func CheckPlacement(n int, p solver.Placement, what string) error {
	if len(p) != n {
		return Errorf(EINVALID, "%s for N=%d needs %d columns, got %d", what, n, n, len(p))
	}
	for r, c := range p {
		if c < 0 || c >= n {
			return Errorf(EINVALID, "%s: row %d: column %d is outside 0..%d", what, r, c, n-1)
		}
	}
	return nil
}

// CheckPlan checks a board plan.
func CheckPlan(p BoardPlan) error {
	if err := CheckN(p.N); err != nil {
		return err
	}
	if p.ChunkDepth < 0 || p.ChunkDepth > p.N {
		return Errorf(EINVALID, "chunk depth for N=%d must be between 0 and %d, got %d", p.N, p.N, p.ChunkDepth)
	}
	if p.Tasks && (p.StoresSolutions || p.ChunkDepth != 0) {
		return Errorf(EINVALID, "a plan by tasks keeps counts only and has chunk depth 0; got stores solutions %t, depth %d", p.StoresSolutions, p.ChunkDepth)
	}
	if p.SolverVersion == "" || len(p.SolverVersion) > 200 || !utf8.ValidString(p.SolverVersion) {
		return Errorf(EINVALID, "solver version must be 1 to 200 bytes of UTF-8, got %q", p.SolverVersion)
	}
	return nil
}

// CheckPage checks a page request.
func CheckPage(r PageRequest) error {
	if err := CheckN(r.N); err != nil {
		return err
	}
	if r.Direction != Forward && r.Direction != Backward {
		return Errorf(EINVALID, "unknown page direction %d", r.Direction)
	}
	if r.Limit < 0 || r.Limit > MaxPageLimit {
		return Errorf(EINVALID, "page limit must be between 0 and %d, got %d", MaxPageLimit, r.Limit)
	}
	if len(r.Cursor) > 0 {
		return CheckPlacement(r.N, r.Cursor, "cursor")
	}
	return nil
}

// CheckRank checks a 1-based rank.
func CheckRank(rank uint64) error {
	if rank == 0 {
		return Errorf(EINVALID, "ranks start at 1 (solution #1 is the first), got 0")
	}
	return nil
}

// CheckReason checks the reason given to FailBoard.
func CheckReason(reason string) error {
	if reason == "" || !utf8.ValidString(reason) {
		return Errorf(EINVALID, "a failure needs a reason in UTF-8, got %q", reason)
	}
	return nil
}

// CursorKey is the key a page query compares placements with: the cursor's
// bytes, or for an empty cursor a bound beyond every placement on the
// page's side. The empty key sorts before every placement; the single byte
// 0xFF sorts after them all, since no column reaches 255 (N ≤ 32). Both
// backends thus need one query per direction, cursor or not.
func (r PageRequest) CursorKey() []byte {
	switch {
	case len(r.Cursor) > 0:
		return r.Cursor.Bytes()
	case r.Direction == Backward:
		return []byte{0xFF}
	}
	return []byte{}
}

// Reverse reverses a backward page, read in descending order, into the
// ascending order every page has.
func Reverse(page []Solution) {
	for i, j := 0, len(page)-1; i < j; i, j = i+1, j-1 {
		page[i], page[j] = page[j], page[i]
	}
}

// CheckStored says whether the solutions of board b can be read: it must
// store them and, when mustBeDone (ranks need the prefix sums written at
// the finish), be done. ENOTFOUND otherwise: the caller answers from the
// solver instead.
func CheckStored(b Board, mustBeDone bool) error {
	switch {
	case !b.StoresSolutions && b.State != Pending:
		return Errorf(ENOTFOUND, "N=%d keeps counts only; its solutions are not stored", b.N)
	case mustBeDone && b.State != Done:
		return Errorf(ENOTFOUND, "the solutions of N=%d are not stored yet (the board is %s)", b.N, b.State)
	case b.State == Pending:
		return Errorf(ENOTFOUND, "the solutions of N=%d are not stored yet (the board is pending)", b.N)
	}
	return nil
}

// CheckRankInRange checks that done board b has a solution #rank.
func CheckRankInRange(b Board, rank uint64, unique bool) error {
	total, what := b.Counts.Total, "solutions"
	if unique {
		total, what = b.Counts.Unique, "unique solutions"
	}
	if rank > total {
		return Errorf(ENOTFOUND, "N=%d has %d %s; there is no #%d", b.N, total, what, rank)
	}
	return nil
}

// CheckRanked checks the lookup of placement p behind a rank: canonical is
// the stored row's flag, nil when p is not a stored solution.
func CheckRanked(n int, p solver.Placement, canonical *bool, unique bool) error {
	switch {
	case canonical == nil:
		return Errorf(ENOTFOUND, "%v is not a solution of N=%d", p, n)
	case unique && !*canonical:
		return Errorf(ENOTFOUND, "%v is not the canonical solution of its class (it is %v)", p, solver.Canonical(p))
	}
	return nil
}
