package pgtest

import (
	"testing"

	"github.com/nqueens/nqueens/store/postgres"
)

// Open opens the Postgres store cfg names, closed when the test ends; an
// empty cfg.URL is a schema of the test's own (Schema). The store is
// migrated unless cfg.SkipMigrations.
func Open(tb testing.TB, cfg postgres.Config) *postgres.Store {
	tb.Helper()
	if cfg.URL == "" {
		cfg.URL, _ = Schema(tb)
	}
	s, err := postgres.Open(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
