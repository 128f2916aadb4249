package pgtest

import (
	"testing"

	"github.com/nqueens/nqueens/store/postgres"
)

// Open opens the Postgres store at url with postgres.DefaultConfig as
// opts change it, migrated unless they set SkipMigrations; it is closed
// when the test ends.
func Open(tb testing.TB, url string, opts ...func(*postgres.Config)) *postgres.Store {
	tb.Helper()
	cfg := postgres.DefaultConfig()
	cfg.URL = url
	for _, o := range opts {
		o(&cfg)
	}
	s, err := postgres.Open(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// OpenSchema opens a store in a schema of the test's own (Schema), with
// the default configuration.
func OpenSchema(tb testing.TB) *postgres.Store {
	tb.Helper()
	u, _ := Schema(tb)
	return Open(tb, u)
}
