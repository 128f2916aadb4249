// Package migrations holds the database schema of the store as
// golang-migrate files, one directory per SQL dialect, embedded in the
// binary, and runs them. Each backend (store/postgres, store/sqlite) opens
// the migrate database driver for its dialect and hands it to New; this
// package depends on no database driver.
//
// Files are NNNNNN_name.up.sql and NNNNNN_name.down.sql; a new version adds
// a pair in both dialects, and never edits a released one.
package migrations

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// Dialect names a directory of migrations.
type Dialect string

// The two dialects.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

//go:embed postgres/*.sql sqlite/*.sql
var files embed.FS

// Migrator applies one dialect's migrations to one database.
type Migrator struct {
	m *migrate.Migrate
}

// New returns a Migrator over db, a migrate database driver of the
// dialect. Close closes db.
func New(d Dialect, db database.Driver) (*Migrator, error) {
	src, err := iofs.New(files, string(d))
	if err != nil {
		return nil, fmt.Errorf("migrations: %s: %w", d, err)
	}
	m, err := migrate.NewWithInstance("iofs", src, string(d), db)
	if err != nil {
		return nil, fmt.Errorf("migrations: %s: %w", d, err)
	}
	return &Migrator{m: m}, nil
}

// Up applies every migration not yet applied. Nothing to do is not an error.
func (m *Migrator) Up() error {
	if err := m.m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return wrap("up", err)
	}
	return nil
}

// Down reverts the last steps migrations (at least 1; DownAll reverts
// them all). Reverting from version 0 is not an error.
func (m *Migrator) Down(steps int) error {
	if steps < 1 {
		return fmt.Errorf("migrations: down takes at least 1 step, got %d (DownAll reverts every migration)", steps)
	}
	v, _, err := m.Version()
	if err != nil {
		return err
	}
	// migrate's Steps fails when asked for more steps than exist.
	return downErr(m.m.Steps(-min(steps, int(v))))
}

// DownAll reverts every migration, dropping the tables and their data.
func (m *Migrator) DownAll() error { return downErr(m.m.Down()) }

// downErr is the error of a migration down: none when there was nothing
// to revert.
func downErr(err error) error {
	if err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return wrap("down", err)
	}
	return nil
}

// Version returns the version applied, 0 when none, and whether the last
// migration failed halfway (dirty: fix the database by hand, then force).
func (m *Migrator) Version() (version uint, dirty bool, err error) {
	version, dirty, err = m.m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wrap("version", err)
	}
	return version, dirty, nil
}

// Latest is the highest version of the dialect's migrations, the version
// Up leads to.
func Latest(d Dialect) (uint, error) {
	src, err := iofs.New(files, string(d))
	if err != nil {
		return 0, fmt.Errorf("migrations: %s: %w", d, err)
	}
	defer src.Close()
	v, err := src.First()
	if err != nil {
		return 0, fmt.Errorf("migrations: %s: %w", d, err)
	}
	for {
		next, err := src.Next(v)
		if errors.Is(err, fs.ErrNotExist) {
			return v, nil
		}
		if err != nil {
			return 0, fmt.Errorf("migrations: %s: %w", d, err)
		}
		v = next
	}
}

// Previous is the version below v among the dialect's migrations, the
// version Down(1) leads to from v (0 below the first). Versions need not be
// contiguous: a branch may add a higher one before a lower one is merged.
func Previous(d Dialect, v uint) (uint, error) {
	src, err := iofs.New(files, string(d))
	if err != nil {
		return 0, fmt.Errorf("migrations: %s: %w", d, err)
	}
	defer src.Close()
	prev, err := src.Prev(v)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("migrations: %s: %w", d, err)
	}
	return prev, nil
}

// Close closes the source and the database driver.
func (m *Migrator) Close() error {
	serr, derr := m.m.Close()
	return errors.Join(serr, derr)
}

// wrap adds the operation to err and puts the driver's own error in the
// chain: migrate's database.Error holds it without unwrapping to it, and
// callers look for it (a locked file, a lost connection).
func wrap(op string, err error) error {
	var byValue database.Error
	var byPointer *database.Error
	switch {
	case errors.As(err, &byPointer) && byPointer.OrigErr != nil:
		return fmt.Errorf("migrations: %s: %s: %w", op, byPointer.Err, byPointer.OrigErr)
	case errors.As(err, &byValue) && byValue.OrigErr != nil:
		return fmt.Errorf("migrations: %s: %s: %w", op, byValue.Err, byValue.OrigErr)
	}
	return fmt.Errorf("migrations: %s: %w", op, err)
}
