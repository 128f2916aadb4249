package sqlite

import (
	"context"
	"database/sql"
	"errors"
)

// SchemaVersion returns the version of the store's schema that
// golang-migrate recorded (0 when none) and whether its last migration
// failed halfway, through the read pool: readiness checks ask it often,
// and a migrator takes the write connection when it starts.
func (s *Store) SchemaVersion(ctx context.Context) (version uint, dirty bool, err error) {
	defer func() {
		if err != nil {
			err = s.q.classify(err)
		}
	}()
	// A file no migration has touched has no schema_migrations table,
	// which SQLite reports with no code of its own: look first.
	var tables int
	err = s.q.reader.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables)
	if err != nil || tables == 0 {
		return 0, false, err
	}
	var v int64
	err = s.q.reader.QueryRowContext(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&v, &dirty)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return uint(v), dirty, nil
}
