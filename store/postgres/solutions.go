package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// The page queries, by direction and by all or unique. The cursor is never
// empty here (see columns.CursorKey), so each is one index range
// scan: the primary key for all solutions, the partial index for unique.
var pageQueries = [2][2]string{
	store.Forward: {
		`SELECT placement, canonical, orbit_size FROM solutions
		 WHERE n = $1 AND placement > $2 ORDER BY placement LIMIT $3`,
		`SELECT placement, canonical, orbit_size FROM solutions
		 WHERE n = $1 AND placement > $2 AND canonical ORDER BY placement LIMIT $3`,
	},
	store.Backward: {
		`SELECT placement, canonical, orbit_size FROM solutions
		 WHERE n = $1 AND placement < $2 ORDER BY placement DESC LIMIT $3`,
		`SELECT placement, canonical, orbit_size FROM solutions
		 WHERE n = $1 AND placement < $2 AND canonical ORDER BY placement DESC LIMIT $3`,
	},
}

// Page returns one page of solutions; see store.Reader.
func (s *queries) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	page, err := s.pages.page(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(page) == 0 {
		// Only an empty page pays for telling "past the end" from "not
		// stored".
		if _, err := storedBoard(ctx, s.pool, req.N, false); err != nil {
			return nil, err
		}
	}
	return page, nil
}

func scanSolution(r pgx.Row, n int) (store.Solution, error) {
	var key []byte
	var canonical bool
	var orbitSize int16
	if err := r.Scan(&key, &canonical, &orbitSize); err != nil {
		return store.Solution{}, err
	}
	return store.Solution{N: n, Placement: solver.FromBytes(key), Canonical: canonical, OrbitSize: int(orbitSize)}, nil
}

// storedBoard returns the board of N if its solutions are stored: done,
// when mustBeDone, or being stored. ENOTFOUND otherwise.
func storedBoard(ctx context.Context, q querier, n int, mustBeDone bool) (store.Board, error) {
	b, err := board(ctx, q, n, "")
	if err != nil {
		return b, err
	}
	return b, lifecycle.CheckStored(b, mustBeDone)
}

// SolutionAt returns solution #rank of N; see store.Reader.
func (s *queries) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error) {
	b, err := storedBoard(ctx, s.pool, n, true)
	if err != nil {
		return store.Solution{}, err
	}
	if err := lifecycle.CheckRankInRange(b, rank, unique); err != nil {
		return store.Solution{}, err
	}
	// The last chunk with fewer solutions before it than rank holds
	// solution #rank; an offset within that one chunk finds it.
	query := `SELECT s.placement, s.canonical, s.orbit_size
		FROM (SELECT prefix, solutions_before AS before FROM chunks
		      WHERE n = $1 AND solutions_before < $2 ORDER BY idx DESC LIMIT 1) AS c,
		     LATERAL (SELECT placement, canonical, orbit_size FROM solutions
		              WHERE n = $1 AND placement >= c.prefix
		              ORDER BY placement OFFSET $2 - c.before - 1 LIMIT 1) AS s`
	if unique {
		query = `SELECT s.placement, s.canonical, s.orbit_size
		FROM (SELECT prefix, unique_before AS before FROM chunks
		      WHERE n = $1 AND unique_before < $2 ORDER BY idx DESC LIMIT 1) AS c,
		     LATERAL (SELECT placement, canonical, orbit_size FROM solutions
		              WHERE n = $1 AND placement >= c.prefix AND canonical
		              ORDER BY placement OFFSET $2 - c.before - 1 LIMIT 1) AS s`
	}
	sol, err := scanSolution(s.pool.QueryRow(ctx, query, n, int64(rank)), n)
	if errors.Is(err, pgx.ErrNoRows) {
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
	b, err := storedBoard(ctx, s.pool, n, true)
	if err != nil {
		return 0, err
	}
	key := p.Bytes()
	// Count what precedes p within its own chunk, and add the chunk's
	// prefix sum: never more than one chunk is counted.
	query := `SELECT c.solutions_before,
		       (SELECT canonical FROM solutions WHERE n = $1 AND placement = $3),
		       (SELECT count(*) FROM solutions WHERE n = $1 AND placement >= c.prefix AND placement < $3)
		FROM chunks AS c WHERE c.n = $1 AND c.prefix = $2`
	if unique {
		query = `SELECT c.unique_before,
		       (SELECT canonical FROM solutions WHERE n = $1 AND placement = $3),
		       (SELECT count(*) FROM solutions WHERE n = $1 AND placement >= c.prefix AND placement < $3 AND canonical)
		FROM chunks AS c WHERE c.n = $1 AND c.prefix = $2`
	}
	var before, within int64
	var canonical *bool
	err = s.pool.QueryRow(ctx, query, n, key[:b.ChunkDepth], key).Scan(&before, &canonical, &within)
	if errors.Is(err, pgx.ErrNoRows) {
		canonical = nil // no chunk has p's prefix: its first rows attack each other
	} else if err != nil {
		return 0, err
	}
	if err := lifecycle.CheckRanked(n, p, canonical, unique); err != nil {
		return 0, err
	}
	return uint64(before+within) + 1, nil
}
