package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/columns"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// The page queries, by direction and by all or unique. The cursor is never
// empty here (see columns.CursorKey), so each is one range scan
// of the primary key, or of the partial index on canonical solutions.
var pageQueries = [2][2]string{
	store.Forward: {
		`SELECT placement, canonical, orbit_size FROM solutions
		 WHERE n = ? AND placement > ? ORDER BY placement LIMIT ?`,
		`SELECT placement, canonical, orbit_size FROM solutions INDEXED BY solutions_canonical
		 WHERE n = ? AND placement > ? AND canonical ORDER BY placement LIMIT ?`,
	},
	store.Backward: {
		`SELECT placement, canonical, orbit_size FROM solutions
		 WHERE n = ? AND placement < ? ORDER BY placement DESC LIMIT ?`,
		`SELECT placement, canonical, orbit_size FROM solutions INDEXED BY solutions_canonical
		 WHERE n = ? AND placement < ? AND canonical ORDER BY placement DESC LIMIT ?`,
	},
}

// Page returns one page of solutions; see store.Reader.
func (s *queries) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	unique := 0
	if req.Unique {
		unique = 1
	}
	rows, err := s.reader.QueryContext(ctx, pageQueries[req.Direction][unique], req.N, columns.CursorKey(req), req.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []store.Solution
	for rows.Next() {
		sol, err := scanSolution(rows, req.N)
		if err != nil {
			return nil, err
		}
		page = append(page, sol)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(page) == 0 {
		// Only an empty page pays for telling "past the end" from "not
		// stored".
		if _, err := storedBoard(ctx, s.reader, req.N, false); err != nil {
			return nil, err
		}
	}
	if req.Direction == store.Backward {
		slices.Reverse(page)
	}
	return page, nil
}

func scanSolution(r scanner, n int) (store.Solution, error) {
	var key []byte
	var canonical bool
	var orbitSize int
	if err := r.Scan(&key, &canonical, &orbitSize); err != nil {
		return store.Solution{}, err
	}
	return store.Solution{N: n, Placement: solver.FromBytes(key), Canonical: canonical, OrbitSize: orbitSize}, nil
}

// storedBoard returns the board of N if its solutions are stored: done,
// when mustBeDone, or being stored. ENOTFOUND otherwise.
func storedBoard(ctx context.Context, q querier, n int, mustBeDone bool) (store.Board, error) {
	b, err := board(ctx, q, n)
	if err != nil {
		return b, err
	}
	return b, lifecycle.CheckStored(b, mustBeDone)
}

// SolutionAt returns solution #rank of N; see store.Reader.
func (s *queries) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error) {
	b, err := storedBoard(ctx, s.reader, n, true)
	if err != nil {
		return store.Solution{}, err
	}
	if err := lifecycle.CheckRankInRange(b, rank, unique); err != nil {
		return store.Solution{}, err
	}
	// The last chunk with fewer solutions before it than rank holds
	// solution #rank; an offset within that one chunk finds it.
	chunkQuery := `SELECT prefix, solutions_before FROM chunks
		WHERE n = ? AND solutions_before < ? ORDER BY idx DESC LIMIT 1`
	solutionQuery := `SELECT placement, canonical, orbit_size FROM solutions
		WHERE n = ? AND placement >= ? ORDER BY placement LIMIT 1 OFFSET ?`
	if unique {
		chunkQuery = `SELECT prefix, unique_before FROM chunks
		WHERE n = ? AND unique_before < ? ORDER BY idx DESC LIMIT 1`
		solutionQuery = `SELECT placement, canonical, orbit_size FROM solutions INDEXED BY solutions_canonical
		WHERE n = ? AND placement >= ? AND canonical ORDER BY placement LIMIT 1 OFFSET ?`
	}
	var prefix []byte
	var before int64
	err = s.reader.QueryRowContext(ctx, chunkQuery, n, int64(rank)).Scan(&prefix, &before)
	if err != nil {
		return store.Solution{}, err
	}
	sol, err := scanSolution(s.reader.QueryRowContext(ctx, solutionQuery, n, prefix, int64(rank)-before-1), n)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Solution{}, nqueens.Errorf(nqueens.EINTERNAL, "N=%d: solution #%d is missing from its chunk", n, rank)
	}
	if err != nil {
		return store.Solution{}, err
	}
	sol.Rank = rank
	return sol, nil
}

// Rank returns the 1-based position of p; see store.Reader.
func (s *queries) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	b, err := storedBoard(ctx, s.reader, n, true)
	if err != nil {
		return 0, err
	}
	key := p.Bytes()
	// Count what precedes p within its own chunk, and add the chunk's
	// prefix sum: never more than one chunk is counted.
	query := `SELECT c.solutions_before,
		       (SELECT canonical FROM solutions WHERE n = ?1 AND placement = ?3),
		       (SELECT count(*) FROM solutions WHERE n = ?1 AND placement >= c.prefix AND placement < ?3)
		FROM chunks AS c WHERE c.n = ?1 AND c.prefix = ?2`
	if unique {
		query = `SELECT c.unique_before,
		       (SELECT canonical FROM solutions WHERE n = ?1 AND placement = ?3),
		       (SELECT count(*) FROM solutions INDEXED BY solutions_canonical
		        WHERE n = ?1 AND placement >= c.prefix AND placement < ?3 AND canonical)
		FROM chunks AS c WHERE c.n = ?1 AND c.prefix = ?2`
	}
	var before, within int64
	var canonical sql.NullBool
	err = s.reader.QueryRowContext(ctx, query, n, key[:b.ChunkDepth], key).Scan(&before, &canonical, &within)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	// No chunk row: p's first rows attack each other, so it is no solution.
	var stored *bool
	if err == nil && canonical.Valid {
		stored = &canonical.Bool
	}
	if err := lifecycle.CheckRanked(n, p, stored, unique); err != nil {
		return 0, err
	}
	return uint64(before+within) + 1, nil
}
