// Package sqlitetest opens SQLite stores for tests.
package sqlitetest

import (
	"path/filepath"
	"testing"

	"github.com/nqueens/nqueens/store/sqlite"
)

// Open opens the SQLite store cfg names, closed when the test ends; an
// empty cfg.Path is a file of the test's own, in its temporary directory.
// The store is migrated unless cfg.SkipMigrations.
func Open(tb testing.TB, cfg sqlite.Config) *sqlite.Store {
	tb.Helper()
	if cfg.Path == "" {
		cfg.Path = filepath.Join(tb.TempDir(), "nqueens.db")
	}
	s, err := sqlite.Open(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
