// Package pgtest gives tests a Postgres schema of their own on the test
// server named by NQUEENS_TEST_DATABASE_URL, and the store over it.
// Without that variable the tests skip, unless NQUEENS_REQUIRE_POSTGRES=1
// (as .ci/run sets it) makes that a failure.
package pgtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/internal/testgate"
)

// Suite is the Postgres tests: those on the test server, and those that
// run a cluster of their own.
var Suite = testgate.Suite{
	Name:    "the Postgres tests",
	Require: "NQUEENS_REQUIRE_POSTGRES",
	Enable: "set NQUEENS_TEST_DATABASE_URL to a database the tests may create schemas in, " +
		"e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable (README, \"Tests\")",
}

// ServerURL is the test server's URL, or a skip (or failure) without one.
func ServerURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("NQUEENS_TEST_DATABASE_URL")
	if u == "" {
		Suite.Missing(tb, "NQUEENS_TEST_DATABASE_URL is unset")
	}
	return u
}

// Schema creates a uniquely named, empty schema on the test server, dropped
// with everything in it when the test ends, and returns a URL whose
// connections use it (search_path) and its name. A schema is much cheaper
// than a database, so every test can have its own.
func Schema(tb testing.TB) (schemaURL, schema string) {
	tb.Helper()
	schemaURL, schema, drop, err := NewSchema(tb.Context(), ServerURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := drop(context.Background()); err != nil {
			tb.Error(err)
		}
	})
	return schemaURL, schema
}

// NewSchema is Schema for a caller that decides itself when to drop it
// (e.g. data shared by several benchmarks).
func NewSchema(ctx context.Context, serverURL string) (schemaURL, schema string, drop func(context.Context) error, err error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", "", nil, fmt.Errorf("NQUEENS_TEST_DATABASE_URL must be a postgres:// URL: %w", err)
	}
	// Lower case: search_path takes it unquoted.
	schema = "nqt_" + strings.ToLower(rand.Text()[:16])
	quoted := pgx.Identifier{schema}.Sanitize()
	if err := exec(ctx, serverURL, "CREATE SCHEMA "+quoted); err != nil {
		return "", "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema) // pgx sends parameters it does not know as settings
	u.RawQuery = q.Encode()
	drop = func(ctx context.Context) error { return exec(ctx, serverURL, "DROP SCHEMA "+quoted+" CASCADE") }
	return u.String(), schema, drop, nil
}

func exec(ctx context.Context, serverURL, sql string) error {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return fmt.Errorf("connecting to the test server: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}
