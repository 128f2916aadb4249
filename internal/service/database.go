// Package service is the database side of the nqueens processes (serve,
// worker, precompute, migrate): it opens the database the settings
// select, waiting while a Postgres server is unreachable; runs the
// precompute workers over it with River, the job system, whose tables live
// beside the store's; and brings serve's database side up in the
// background while the API already answers: the store the API reads
// through before the database is open, /readyz and River UI.
//
// cmd/nqueens turns flags into the settings here; the tests of this
// package and of cmd/nqueens run all of it in-process.
package service

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/sqlite"
)

// Database is the database a process uses: Postgres when URL is set
// (DATABASE_URL, docs/ARCHITECTURE.md, "SQLite default, Postgres"), else the SQLite file at
// Path.
type Database struct {
	URL  string // postgres://… or a key=value string
	Path string // the SQLite file, created if missing
}

// The settings that select the database, as every command reads them:
// the Postgres URL from EnvDatabaseURL (or a flag) selects Postgres;
// without it, the SQLite file at EnvSQLitePath (or a flag), by default
// DefaultSQLitePath.
const (
	EnvDatabaseURL    = "DATABASE_URL"
	EnvSQLitePath     = "NQUEENS_SQLITE_PATH"
	DefaultSQLitePath = "./nqueens.db"
)

// SelectDatabase is the database the settings select: Postgres at url
// when it is set, else the SQLite file at sqlitePath (an error when that is
// empty too).
func SelectDatabase(url, sqlitePath string) (Database, error) {
	switch {
	case url != "":
		return Database{URL: url}, nil
	case sqlitePath == "":
		return Database{}, fmt.Errorf("the SQLite file's path is empty; name the file (default %s), or give a Postgres URL", DefaultSQLitePath)
	}
	return Database{Path: sqlitePath}, nil
}

// Dialect is the SQL dialect of the database, Postgres or SQLite.
func (d Database) Dialect() migrations.Dialect {
	if d.URL != "" {
		return migrations.Postgres
	}
	return migrations.SQLite
}

// String names the database without the URL, which may hold a password.
func (d Database) String() string {
	if d.Dialect() == migrations.Postgres {
		return "postgres (DATABASE_URL)"
	}
	return "sqlite " + d.Path
}

// Migrator is the store's schema migrations over the database.
func (d Database) Migrator() (*migrations.Migrator, error) {
	if d.Dialect() == migrations.Postgres {
		return postgres.NewMigrator(d.URL)
	}
	return sqlite.NewMigrator(d.Path)
}

// openStore opens the store over the database, applying the migrations
// not applied yet unless skipMigrations; observe (if not nil) is told of
// every call of the store; tp (if not nil) makes spans of Postgres's
// statements. It is a *postgres.Store or a *sqlite.Store,
// which openJobs tells apart to type the job system's transactions.
func (d Database) openStore(ctx context.Context, skipMigrations bool, observe store.Observer, tp trace.TracerProvider) (store.ReadCloser, error) {
	if d.Dialect() == migrations.Postgres {
		cfg := postgres.DefaultConfig()
		cfg.URL, cfg.SkipMigrations, cfg.Observe, cfg.TracerProvider = genericPlans(d.URL), skipMigrations, observe, tp
		s, err := postgres.Open(ctx, cfg)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return s, nil
	}
	cfg := sqlite.DefaultConfig()
	cfg.Path, cfg.SkipMigrations, cfg.Observe = d.Path, skipMigrations, observe
	s, err := sqlite.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// genericPlans sets plan_cache_mode=force_generic_plan on the connections
// of a Postgres URL (or key=value string) that does not set it already.
//
// The store's queries are prepared once per connection and run with new
// cursors each time. Left to itself ("auto"), Postgres plans a page query
// anew at every execution: its generic plan (placement > $2 of an unknown
// $2) looks costlier than the custom ones, so it never switches, and the
// planning costs more than the index scan it plans. The generic plan is
// the same index scan. Measured with pgbench on N=16 (docs/PERFORMANCE.md,
// "GraphQL API"): a third more pages per second from the same CPU.
func genericPlans(dsn string) string {
	const param = "plan_cache_mode"
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn // Open reports it
		}
		q := u.Query()
		if q.Has(param) {
			return dsn
		}
		q.Set(param, "force_generic_plan")
		u.RawQuery = q.Encode()
		return u.String()
	}
	if strings.Contains(dsn, param) {
		return dsn
	}
	return strings.TrimSpace(dsn) + " " + param + "=force_generic_plan"
}

// OpenStore opens the store alone, without the job system and without
// migrating it: for the commands that only read it (export).
func OpenStore(ctx context.Context, db Database) (store.ReadCloser, error) {
	st, err := db.openStore(ctx, true, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the database (%s): %w", db, err)
	}
	return st, nil
}
