package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/filterquery"
)

// filteredPage returns a page under a filter: one range scan of the
// primary key (or of the canonical index, when unique) between the
// filter's and the cursor's bounds, keeping the rows that meet the
// filter's condition. Its cost is the rows scanned, not the rows kept:
// docs/PERFORMANCE.md ("Filtered pages") measures when that beats the
// solver.
func (s *queries) filteredPage(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	lower, upper := filterquery.PageRange(req)
	order := "placement"
	if req.Direction == store.Backward {
		order = "placement DESC"
	}
	query := fmt.Sprintf(`SELECT placement FROM solutions
		WHERE n = $1 AND placement > $2 AND placement < $3%s AND (%s)
		ORDER BY %s LIMIT $4`, canonicalOnly(req.Unique), filterquery.Condition(filterquery.Postgres, req.N, req.Filter, req.Unique), order)
	rows, err := s.pool.Query(ctx, query, req.N, lower, upper, req.Limit)
	if err != nil {
		return nil, err
	}
	page, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Solution, error) {
		var key []byte
		if err := r.Scan(&key); err != nil {
			return store.Solution{}, err
		}
		return filterquery.Solution(req.N, key), nil
	})
	if err != nil {
		return nil, err
	}
	if len(page) == 0 {
		if _, err := storedBoard(ctx, s.pool, req.N, false); err != nil {
			return nil, err
		}
	}
	if req.Direction == store.Backward {
		slices.Reverse(page)
	}
	return page, nil
}

func canonicalOnly(unique bool) string {
	if unique {
		return " AND canonical"
	}
	return ""
}

// CountSolutions counts the solutions under a filter; see store.Store.
func (s *queries) CountSolutions(ctx context.Context, req store.CountRequest) (uint64, error) {
	b, err := storedBoard(ctx, s.pool, req.N, true)
	if err != nil {
		return 0, err
	}
	if req.Filter.IsZero() {
		if req.Unique {
			return b.Counts.Unique, nil
		}
		return b.Counts.Total, nil
	}
	lower, upper := filterquery.Range(req.N, req.Filter, req.Unique)
	query := fmt.Sprintf(`SELECT count(*) FROM solutions
		WHERE n = $1 AND placement > $2 AND placement < $3%s AND (%s)`,
		canonicalOnly(req.Unique), filterquery.Condition(filterquery.Postgres, req.N, req.Filter, req.Unique))
	var k int64
	if err := s.pool.QueryRow(ctx, query, req.N, lower, upper).Scan(&k); err != nil {
		return 0, err
	}
	return uint64(k), nil
}

// Walk streams the placements of a listing; see store.Store. The rows
// arrive as the server sends them and are read in place (DriverBytes), so
// a walk allocates nothing per row.
func (s *queries) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error {
	if _, err := storedBoard(ctx, s.pool, req.N, true); err != nil {
		return err
	}
	lower, upper := filterquery.PageRange(store.PageRequest{N: req.N, Unique: req.Unique, Cursor: req.After, Filter: req.Filter})
	query := fmt.Sprintf(`SELECT placement FROM solutions
		WHERE n = $1 AND placement > $2 AND placement < $3%s AND (%s)
		ORDER BY placement`, canonicalOnly(req.Unique), filterquery.Condition(filterquery.Postgres, req.N, req.Filter, req.Unique))
	rows, err := s.pool.Query(ctx, query, req.N, lower, upper)
	if err != nil {
		return err
	}
	defer rows.Close()
	var key pgtype.DriverBytes
	for rows.Next() {
		if err := rows.Scan(&key); err != nil {
			return err
		}
		if err := visit(key); err != nil {
			return err
		}
	}
	return rows.Err()
}
