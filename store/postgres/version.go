package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SchemaVersion returns the version of the store's schema that
// golang-migrate recorded (0 when none) and whether its last migration
// failed halfway, from the pool, without a migrator of its own: readiness
// checks ask it often, and a migrator writes when it starts.
func (s *Store) SchemaVersion(ctx context.Context) (version uint, dirty bool, err error) {
	defer func() {
		if err != nil {
			err = s.q.classify(err)
		}
	}()
	var v int64
	err = s.q.pool.QueryRow(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&v, &dirty)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows), errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return uint(v), dirty, nil
}
