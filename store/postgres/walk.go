package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/filterquery"
)

// Walk streams the placements of a listing; see store.Reader. The rows
// arrive as the server sends them and are read in place (DriverBytes), so
// a walk allocates nothing per row.
func (s *queries) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error {
	if _, err := storedBoard(ctx, s.pool, req.N, true); err != nil {
		return err
	}
	lower, upper := filterquery.WalkRange(req)
	query := fmt.Sprintf(`SELECT placement FROM solutions
		WHERE n = $1 AND placement > $2 AND placement < $3%s AND (%s)
		ORDER BY placement`, filterquery.CanonicalOnly(req.Unique), filterquery.Condition(filterquery.Postgres, req.N, req.Filter, req.Unique))
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
