package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/filterquery"
)

// solutionsIndexed names the table to scan: a unique listing reads the
// partial index of canonical solutions, as unique pages do.
func solutionsIndexed(unique bool) string {
	if unique {
		return "solutions INDEXED BY solutions_canonical"
	}
	return "solutions"
}

// Walk streams the placements of a listing; see store.Reader. It reads one
// column into sql.RawBytes, the driver's own buffer, so database/sql
// copies nothing per row.
func (s *queries) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error {
	if _, err := storedBoard(ctx, s.reader, req.N, true); err != nil {
		return err
	}
	lower, upper := filterquery.WalkRange(req)
	query := fmt.Sprintf(`SELECT placement FROM %s
		WHERE n = ? AND placement > ? AND placement < ?%s AND (%s)
		ORDER BY placement`, solutionsIndexed(req.Unique), filterquery.CanonicalOnly(req.Unique),
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
