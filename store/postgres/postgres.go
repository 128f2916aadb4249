// Package postgres is the Postgres backend of store.Store[pgx.Tx], over a pgx v5
// connection pool. Bulk writes use COPY; pages are keyset range scans of
// the (n, placement) primary key or of the partial index on canonical
// solutions.
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/tracing"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store"
)

// Config says how to open the store. Start from DefaultConfig and set URL.
type Config struct {
	// URL is a postgres:// connection URL (or a key=value string).
	// Parameters that pgx does not know, such as search_path, are sent to
	// the server as run-time settings.
	URL string
	// SkipMigrations leaves the schema as it is; otherwise Open applies
	// the migrations not yet applied.
	SkipMigrations bool
	// MaxConns bounds the pool (at least 1), unless the URL sets
	// pool_max_conns, which wins.
	MaxConns int32
	// ConnectTimeout bounds a new connection (positive), unless the URL
	// sets connect_timeout, which wins.
	ConnectTimeout time.Duration
	// Observe, when not nil, is told of every call of the store (its
	// method, duration and error): the metrics' way in.
	Observe store.Observer
	// TracerProvider, unless nil or the no-op one, makes a span of each
	// statement run within a span being recorded (tracer.go).
	TracerProvider trace.TracerProvider
}

// DefaultConfig is the configuration the commands open Postgres with,
// without a URL.
func DefaultConfig() Config {
	return Config{
		// pgx's own (4, or the number of CPUs) is too small for a pool
		// that the job system shares (Pool): each worker job holds a
		// connection while it writes its chunk, and River keeps one for
		// LISTEN and uses more to fetch and complete jobs, besides the
		// API's reads.
		MaxConns: 20,
		// With the server gone (a host that drops packets, not a closed
		// port), requests then fail with EUNAVAILABLE well within their
		// own time budget instead of waiting for the kernel to give up.
		ConnectTimeout: 3 * time.Second,
	}
}

// check says which field of c Open refuses, if any.
func (c Config) check() error {
	if c.URL == "" {
		return configcheck.Errorf("URL", "is empty; give a postgres:// URL")
	}
	return cmp.Or(
		configcheck.AtLeast("MaxConns", c.MaxConns, 1),
		configcheck.Positive("ConnectTimeout", c.ConnectTimeout),
	)
}

// Store is the Postgres store.Store[pgx.Tx]: its methods check their arguments
// (store.Checked), then run the queries.
type Store struct {
	checkedStore
	q *queries
}

// checkedStore is store.Store[pgx.Tx] under a name of the package's own, so that
// the field Store embeds it in stays unexported.
type checkedStore = store.Store[pgx.Tx]

// queries is the store without the argument checks: each method starts at
// its SQL.
type queries struct {
	pool   *pgxpool.Pool
	pages  *pageBatcher
	closed atomic.Bool // set by Close: classify's sign that errors now come from a closed pool
}

var _ store.Store[pgx.Tx] = (*queries)(nil)

// Open connects, checks that the server answers (EUNAVAILABLE when it does
// not) and applies the migrations unless told not to.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	return open(ctx, cfg, true)
}

// open is Open, with the check that the server answers only when ping
// (a read replica may come up later: OpenReplicated).
func open(ctx context.Context, cfg Config, ping bool) (*Store, error) {
	if err := cfg.check(); err != nil {
		return nil, nqueens.Errorf(nqueens.EINVALID, "postgres: %v", err)
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, nqueens.Errorf(nqueens.EINVALID, "bad Postgres URL: %v", err)
	}
	if !strings.Contains(cfg.URL, "pool_max_conns") {
		pc.MaxConns = cfg.MaxConns
	}
	if !strings.Contains(cfg.URL, "connect_timeout") {
		pc.ConnConfig.ConnectTimeout = cfg.ConnectTimeout
	}
	if tracing.Records(cfg.TracerProvider) {
		pc.ConnConfig.Tracer = newQueryTracer(cfg.TracerProvider)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, translate(err)
	}
	if ping {
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, translate(err)
		}
	}
	if !cfg.SkipMigrations {
		if err := migrateUp(pc.ConnConfig); err != nil {
			pool.Close()
			return nil, translate(err) // the server may have gone since the ping
		}
	}
	q := &queries{pool: pool, pages: newPageBatcher(pool)}
	return &Store{checkedStore: store.Checked[pgx.Tx](q, q.classify, cfg.Observe), q: q}, nil
}

func migrateUp(cc *pgx.ConnConfig) error {
	m, err := newMigrator(cc)
	if err != nil {
		return err
	}
	return errors.Join(m.Up(), m.Close())
}

// NewMigrator returns a migrator for the database at url; closing it closes
// its connection.
func NewMigrator(url string) (*migrations.Migrator, error) {
	cc, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, nqueens.Errorf(nqueens.EINVALID, "bad Postgres URL: %v", err)
	}
	return newMigrator(cc)
}

func newMigrator(cc *pgx.ConnConfig) (*migrations.Migrator, error) {
	// golang-migrate drives database/sql; pgx's stdlib adapter gives it a
	// database/sql handle with the same settings (search_path included).
	db := stdlib.OpenDB(*cc)
	drv, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		db.Close()
		return nil, translate(fmt.Errorf("migrations: %w", err))
	}
	m, err := migrations.New(migrations.Postgres, drv)
	if err != nil {
		drv.Close()
		return nil, err
	}
	return m, nil
}

// Pool is the store's connection pool, for the job system (River) to
// share: its jobs are completed in the store's own transactions.
func (s *Store) Pool() *pgxpool.Pool { return s.q.pool }

// Ping checks that the server answers.
func (s *queries) Ping(ctx context.Context) error {
	return s.pool.Ping(ctx)
}

// Close closes the pool.
func (s *queries) Close() error {
	s.closed.Store(true)
	s.pages.close()
	s.pool.Close()
	return nil
}
