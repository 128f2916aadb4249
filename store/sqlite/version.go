package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// SchemaVersion returns the version of the store's schema that
// golang-migrate recorded (0 when none) and whether its last migration
// failed halfway, through the read pool: readiness checks ask it often,
// and a migrator takes the write connection when it starts.
func (s *Store) SchemaVersion(ctx context.Context) (version uint, dirty bool, err error) {
	var v int64
	err = s.q.reader.QueryRowContext(ctx, `SELECT version, dirty FROM schema_migrations LIMIT 1`).Scan(&v, &dirty)
	switch {
	case errors.Is(err, sql.ErrNoRows), err != nil && strings.Contains(err.Error(), "no such table"):
		return 0, false, nil
	case err != nil:
		return 0, false, translate(err)
	}
	return uint(v), dirty, nil
}
