// Package sqlite is the embedded backend of store.Store[*sql.Tx]: one SQLite file,
// through modernc.org/sqlite (pure Go, no cgo). SQLite takes one writer at
// a time, so every write goes through a single connection, in
// transactions that take the write lock when they begin; reads go through
// a separate pool of read-only connections, which WAL mode lets read while
// a chunk is being written.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sqlitemigrate "github.com/golang-migrate/migrate/v4/database/sqlite"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store"
)

// Config says how to open the store. Start from DefaultConfig and set
// Path.
type Config struct {
	// Path is the database file, created if missing.
	Path string
	// SkipMigrations leaves the schema as it is; otherwise Open applies
	// the migrations not yet applied.
	SkipMigrations bool
	// BusyTimeout is how long a statement waits for a lock another process
	// holds before giving up with EUNAVAILABLE; 0: it gives up at once.
	BusyTimeout time.Duration
	// ReadConns bounds the read-only pool (at least 1).
	ReadConns int
	// Observe, when not nil, is told of every call of the store (its
	// method, duration and error): the metrics' way in.
	Observe store.Observer
}

// DefaultConfig is the configuration the commands open the SQLite file
// with, without a path.
func DefaultConfig() Config {
	return Config{
		// Another process (a migration, a backup, sqlite3) holds the lock
		// for a few statements at a time; 5 s waits that out and still
		// answers a request within its time budget.
		BusyTimeout: 5 * time.Second,
		// WAL mode lets readers read while a chunk is written: a few of
		// them serve the API's requests at once on a machine of a few
		// cores, each with its own page cache.
		ReadConns: 4,
	}
}

// check says which field of c Open refuses, if any.
func (c Config) check() error {
	if c.Path == "" {
		return configcheck.Errorf("Path", "is empty; SQLite needs a database file path")
	}
	return cmp.Or(
		configcheck.NotNegative("BusyTimeout", c.BusyTimeout),
		configcheck.AtLeast("ReadConns", c.ReadConns, 1),
	)
}

// Store is the SQLite store.Store[*sql.Tx]: its methods check their arguments
// (store.Checked), then run the queries.
type Store struct {
	checkedStore
	q *queries
}

// checkedStore is store.Store[*sql.Tx] under a name of the package's own, so that
// the field Store embeds it in stays unexported.
type checkedStore = store.Store[*sql.Tx]

// queries is the store without the argument checks: each method starts at
// its SQL.
type queries struct {
	writer *sql.DB     // one connection: all writes, one at a time
	reader *sql.DB     // read-only connections for everything else
	closed atomic.Bool // set by Close: classify's sign that errors now come from closed pools
}

var _ store.Store[*sql.Tx] = (*queries)(nil)

// Open opens (creating if needed) the database file and applies the
// migrations unless told not to.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.check(); err != nil {
		return nil, nqueens.Errorf(nqueens.EINVALID, "sqlite: %v", err)
	}
	if !cfg.SkipMigrations {
		m, err := newMigrator(cfg.Path, cfg.BusyTimeout)
		if err != nil {
			return nil, err
		}
		if err := errors.Join(m.Up(), m.Close()); err != nil {
			return nil, translate(err)
		}
	}
	writer, err := openDB(ctx, dsn(cfg.Path, cfg.BusyTimeout, false), 1)
	if err != nil {
		return nil, err
	}
	reader, err := openDB(ctx, dsn(cfg.Path, cfg.BusyTimeout, true), cfg.ReadConns)
	if err != nil {
		writer.Close()
		return nil, err
	}
	q := &queries{writer: writer, reader: reader}
	return &Store{checkedStore: store.Checked[*sql.Tx](q, q.classify, cfg.Observe), q: q}, nil
}

// dsn is the modernc data source name of the file. Writers set WAL mode
// (kept in the file), synchronous=NORMAL (in WAL mode a crash may lose the
// last commits but never corrupts) and take the write lock at BEGIN, so a
// transaction never fails halfway for want of it; readers are query-only.
func dsn(path string, busy time.Duration, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_foreign_keys", "1")
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "NORMAL")
		q.Set("_txlock", "immediate")
	}
	// A file: URI, so that any path works: '%', '?' and '#' are escaped.
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + escaped + "?" + q.Encode()
}

func openDB(ctx context.Context, dsn string, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, translate(err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, translate(err)
	}
	return db, nil
}

// NewMigrator returns a migrator for the database file at path; closing
// it closes its connection.
func NewMigrator(path string) (*migrations.Migrator, error) {
	return newMigrator(path, DefaultConfig().BusyTimeout)
}

func newMigrator(path string, busy time.Duration) (*migrations.Migrator, error) {
	db, err := openDB(context.Background(), dsn(path, busy, false), 1)
	if err != nil {
		return nil, err
	}
	drv, err := sqlitemigrate.WithInstance(db, &sqlitemigrate.Config{})
	if err != nil {
		db.Close()
		return nil, translate(err)
	}
	m, err := migrations.New(migrations.SQLite, drv)
	if err != nil {
		drv.Close()
		return nil, err
	}
	return m, nil
}

// Writer is the store's one write connection, for the job system (River)
// to share: SQLite takes one writer at a time, and jobs are completed in
// the store's own transactions.
func (s *Store) Writer() *sql.DB { return s.q.writer }

// Ping checks that the file can be read.
func (s *queries) Ping(ctx context.Context) error {
	return s.reader.PingContext(ctx)
}

// Close closes both pools.
func (s *queries) Close() error {
	s.closed.Store(true)
	return errors.Join(s.reader.Close(), s.writer.Close())
}

// inTx runs f in a write transaction, committing when it returns nil.
func (s *queries) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after a commit: does nothing
	if err := f(tx); err != nil {
		// A cancelled context can surface as a driver error (a closed
		// connection); keep the cancellation findable with errors.Is.
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = errors.Join(ctxErr, err)
		}
		return err
	}
	return tx.Commit()
}

// timeLayout is how times are stored: UTC, fixed width, so that text order
// is time order.
const timeLayout = "2006-01-02T15:04:05.000000Z"

func now() string { return time.Now().UTC().Format(timeLayout) }

// parseTime reads a stored time; NULL is the zero time.
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s.String)
}
