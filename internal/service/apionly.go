package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/sqlite"
)

// An API-only process (serve --api-only) reads and never writes: no
// workers, no River client, no migrations, so that a database role with
// SELECT alone is enough for it (docs/OPERATIONS.md, "API-only
// processes"). It checks the schema's version instead of migrating it, and
// answers the mutations, which need writes, with errAPIOnly.

// errAPIOnly is what an API-only process answers to a precompute: no
// retry helps, another process takes it.
var errAPIOnly = &apierror.Error{Code: apierror.Unavailable, Reason: apierror.ReasonAPIOnly,
	Message: "this process is API-only (--api-only): it only reads; send precompute requests to a process that runs workers (serve without --api-only), or run nqueens precompute"}

// apiOnlyWorkers are an API-only process's workers: none, and River's
// schema, which /readyz checks. A schema at another version than this
// binary's is said at once in the log (and by /readyz until a process
// that may write migrates it); the process still serves.
func apiOnlyWorkers(ctx context.Context, st store.Reader, dialect migrations.Dialect, logger *slog.Logger) (*serveWorkers, error) {
	schema, err := riverSchemaOf(st)
	if err != nil {
		return nil, err
	}
	w := &serveWorkers{apiOnly: true, schema: schema, logger: logger}
	if err := checkSchema(ctx, st, dialect, schema); err != nil {
		if perr := st.Ping(ctx); perr != nil {
			return nil, perr // the database went away: retried like the opening
		}
		logger.Error("API-only: the database's schema is not the one this binary reads; run `nqueens migrate up` from a process whose role may write (/readyz fails until then)", "err", err)
	}
	return w, nil
}

// riverSchemaOf is River's schema in st's database, read only.
func riverSchemaOf(st store.Reader) (*riverSchema, error) {
	switch s := st.(type) {
	case *postgres.Store:
		return postgresSchema(s.Pool()), nil
	case *sqlite.Store:
		return sqliteSchema(s.Writer()), nil
	}
	return nil, fmt.Errorf("no job system's schema for a %T store", st)
}
