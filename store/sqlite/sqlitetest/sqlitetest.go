// Package sqlitetest opens SQLite stores for tests.
package sqlitetest

import (
	"path/filepath"
	"testing"

	"github.com/nqueens/nqueens/store/sqlite"
)

// Open opens the SQLite store in the file at path with
// sqlite.DefaultConfig as opts change it, migrated unless they set
// SkipMigrations; it is closed when the test ends.
func Open(tb testing.TB, path string, opts ...func(*sqlite.Config)) *sqlite.Store {
	tb.Helper()
	cfg := sqlite.DefaultConfig()
	cfg.Path = path
	for _, o := range opts {
		o(&cfg)
	}
	s, err := sqlite.Open(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// OpenTemp opens a store in a new file in the test's temporary
// directory, with the default configuration.
func OpenTemp(tb testing.TB) *sqlite.Store {
	tb.Helper()
	return Open(tb, filepath.Join(tb.TempDir(), "nqueens.db"))
}
