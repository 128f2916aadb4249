package store

import (
	"unicode"
	"unicode/utf8"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// The checks Checked runs on every argument before a backend touches the
// database, so that bad input is nqueens.EINVALID with the same message on both.

// checkN checks a board size.
func checkN(n int) error {
	if n < 1 || n > solver.MaxSearchN {
		return nqueens.Errorf(nqueens.EINVALID, "N must be between 1 and %d, got %d", solver.MaxSearchN, n)
	}
	return nil
}

// checkPlacement checks that p has N columns, each within 0..N-1. It does
// not check that p is a solution.
func checkPlacement(n int, p solver.Placement, what string) error {
	if len(p) != n {
		return nqueens.Errorf(nqueens.EINVALID, "%s for N=%d needs %d columns, got %d", what, n, n, len(p))
	}
	for r, c := range p {
		if c < 0 || c >= n {
			return nqueens.Errorf(nqueens.EINVALID, "%s: row %d: column %d is outside 0..%d", what, r, c, n-1)
		}
	}
	return nil
}

// checkPlan checks a board plan.
func checkPlan(p BoardPlan) error {
	if err := checkN(p.N); err != nil {
		return err
	}
	if p.ChunkDepth < 0 || p.ChunkDepth > p.N {
		return nqueens.Errorf(nqueens.EINVALID, "chunk depth for N=%d must be between 0 and %d, got %d", p.N, p.N, p.ChunkDepth)
	}
	if p.Tasks && (p.StoresSolutions || p.ChunkDepth != 0) {
		return nqueens.Errorf(nqueens.EINVALID, "a plan by tasks keeps counts only and has chunk depth 0; got stores solutions %t, depth %d", p.StoresSolutions, p.ChunkDepth)
	}
	if err := checkRequestedBy(p.RequestedBy); err != nil {
		return err
	}
	if p.SolverVersion == "" || len(p.SolverVersion) > 200 || !utf8.ValidString(p.SolverVersion) {
		return nqueens.Errorf(nqueens.EINVALID, "solver version must be 1 to 200 bytes of UTF-8, got %q", p.SolverVersion)
	}
	return nil
}

// MaxRequestedByLen is the longest name a board's requester may have, in
// characters: a user name or an e-mail address fits, a paragraph does not.
const MaxRequestedByLen = 100

// checkRequestedBy checks the name of who asked for a board: empty (not
// known), or up to MaxRequestedByLen printable characters of UTF-8 (no
// control characters, no line breaks), which the viewer and a psql
// listing show as they are.
func checkRequestedBy(name string) error {
	if name == "" {
		return nil
	}
	if !utf8.ValidString(name) {
		return nqueens.Errorf(nqueens.EINVALID, "requested by must be UTF-8 text, got %q", name)
	}
	if n := utf8.RuneCountInString(name); n > MaxRequestedByLen {
		return nqueens.Errorf(nqueens.EINVALID, "requested by is at most %d characters, got %d", MaxRequestedByLen, n)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return nqueens.Errorf(nqueens.EINVALID, "requested by must be printable text (letters, digits, punctuation, spaces; no control characters or line breaks), got %q", name)
		}
	}
	return nil
}

// checkPage checks a page request.
func checkPage(r PageRequest) error {
	if err := checkN(r.N); err != nil {
		return err
	}
	if r.Direction != Forward && r.Direction != Backward {
		return nqueens.Errorf(nqueens.EINVALID, "unknown page direction %d", r.Direction)
	}
	if r.Limit < 0 || r.Limit > MaxPageLimit {
		return nqueens.Errorf(nqueens.EINVALID, "page limit must be between 0 and %d, got %d", MaxPageLimit, r.Limit)
	}
	if len(r.Cursor) > 0 {
		if err := checkPlacement(r.N, r.Cursor, "cursor"); err != nil {
			return err
		}
	}
	return nil
}

// checkWalk checks a walk request.
func checkWalk(r WalkRequest) error {
	if err := checkN(r.N); err != nil {
		return err
	}
	if len(r.After) > 0 {
		if err := checkPlacement(r.N, r.After, "cursor"); err != nil {
			return err
		}
	}
	return checkFilter(r.N, r.Filter)
}

// checkStates checks the states a board list is narrowed to.
func checkStates(states []BoardState) error {
	for _, s := range states {
		switch s {
		case Pending, Running, Done, Failed:
		default:
			return nqueens.Errorf(nqueens.EINVALID, "unknown board state %q; the states are pending, running, done and failed", s)
		}
	}
	return nil
}

// checkRank checks a 1-based rank.
func checkRank(rank uint64) error {
	if rank == 0 {
		return nqueens.Errorf(nqueens.EINVALID, "ranks start at 1 (solution #1 is the first), got 0")
	}
	return nil
}

// checkReason checks the reason given to FailBoard.
func checkReason(reason string) error {
	if reason == "" || !utf8.ValidString(reason) {
		return nqueens.Errorf(nqueens.EINVALID, "a failure needs a reason in UTF-8, got %q", reason)
	}
	return nil
}

// checkWorkerID checks a worker's id: 1 to MaxWorkerIDLen bytes of UTF-8.
func checkWorkerID(id string) error {
	if id == "" || len(id) > MaxWorkerIDLen || !utf8.ValidString(id) {
		return nqueens.Errorf(nqueens.EINVALID, "a worker id is 1 to %d bytes of UTF-8, got %d bytes", MaxWorkerIDLen, len(id))
	}
	return nil
}

// checkChunkWrite checks a chunk write: a board size in range, a prefix of
// queens that do not attack each other (or a task of the counter), and
// counts that add up when they are given instead of solutions.
func checkChunkWrite(w ChunkWrite) error {
	if err := checkN(w.N()); err != nil {
		return err
	}
	if len(w.Tasks) > 0 {
		for _, t := range w.Tasks {
			if t.N != w.N() {
				return nqueens.Errorf(nqueens.EINVALID, "%v: tasks of N=%d and N=%d in one chunk", w, w.N(), t.N)
			}
			if err := t.Validate(); err != nil {
				return nqueens.Errorf(nqueens.EINVALID, "%v", err)
			}
		}
		if w.Solutions != nil {
			return nqueens.Errorf(nqueens.EINVALID, "%v: tasks are written with their counts, not their solutions", w)
		}
		return checkChunkCounts(w, w.Counts)
	}
	if err := w.Chunk.Validate(); err != nil {
		return nqueens.Errorf(nqueens.EINVALID, "%v", err)
	}
	if w.Solutions == nil {
		return checkChunkCounts(w, w.Counts)
	}
	return nil
}

// checkChunkCounts checks counts given for a chunk without its solutions:
// its classes must add up to its unique count, which cannot exceed its
// total. (The full check, solver.Counts.Check, holds only for a whole
// board: a class's members lie in several chunks.)
func checkChunkCounts(w ChunkWrite, c solver.Counts) error {
	if c.Orbit1+c.Orbit2+c.Orbit4+c.Orbit8 != c.Unique || c.Unique > c.Total || c.Total >= 1<<63 {
		return nqueens.Errorf(nqueens.EINVALID, "%v: counts do not add up: %+v", w, c)
	}
	return nil
}
