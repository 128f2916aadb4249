package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

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
	query := fmt.Sprintf(`SELECT placement FROM %s
		WHERE n = ? AND placement > ? AND placement < ?%s AND (%s)
		ORDER BY %s LIMIT ?`, solutionsIndexed(req.Unique), canonicalOnly(req.Unique),
		filterquery.Condition(filterquery.SQLite, req.N, req.Filter, req.Unique), order)
	rows, err := s.reader.QueryContext(ctx, query, req.N, lower, upper, req.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []store.Solution
	for rows.Next() {
		var key []byte
		if err := rows.Scan(&key); err != nil {
			return nil, err
		}
		page = append(page, filterquery.Solution(req.N, key))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(page) == 0 {
		if _, err := storedBoard(ctx, s.reader, req.N, false); err != nil {
			return nil, err
		}
	}
	if req.Direction == store.Backward {
		slices.Reverse(page)
	}
	return page, nil
}

// solutionsIndexed names the table to scan: a unique listing reads the
// partial index of canonical solutions, as unique pages do.
func solutionsIndexed(unique bool) string {
	if unique {
		return "solutions INDEXED BY solutions_canonical"
	}
	return "solutions"
}

func canonicalOnly(unique bool) string {
	if unique {
		return " AND canonical"
	}
	return ""
}

// CountSolutions counts the solutions under a filter; see store.Store.
func (s *queries) CountSolutions(ctx context.Context, req store.CountRequest) (uint64, error) {
	b, err := storedBoard(ctx, s.reader, req.N, true)
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
	query := fmt.Sprintf(`SELECT count(*) FROM %s
		WHERE n = ? AND placement > ? AND placement < ?%s AND (%s)`,
		solutionsIndexed(req.Unique), canonicalOnly(req.Unique),
		filterquery.Condition(filterquery.SQLite, req.N, req.Filter, req.Unique))
	var k int64
	if err := s.reader.QueryRowContext(ctx, query, req.N, lower, upper).Scan(&k); err != nil {
		return 0, err
	}
	return uint64(k), nil
}

// Walk streams the placements of a listing; see store.Store. It reads one
// column into sql.RawBytes, the driver's own buffer, so database/sql
// copies nothing per row.
func (s *queries) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error {
	if _, err := storedBoard(ctx, s.reader, req.N, true); err != nil {
		return err
	}
	lower, upper := filterquery.PageRange(store.PageRequest{N: req.N, Unique: req.Unique, Cursor: req.After, Filter: req.Filter})
	query := fmt.Sprintf(`SELECT placement FROM %s
		WHERE n = ? AND placement > ? AND placement < ?%s AND (%s)
		ORDER BY placement`, solutionsIndexed(req.Unique), canonicalOnly(req.Unique),
		filterquery.Condition(filterquery.SQLite, req.N, req.Filter, req.Unique))
	rows, err := s.reader.QueryContext(ctx, query, req.N, lower, upper)
	if err != nil {
		return err
	}
	defer rows.Close()
	var key sql.RawBytes
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
