package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestErrorCodesOverTransports: an error of the store reaches /graphql
// and /export with the same code, by the one table (server/errors.go):
// a store that cannot be reached is UNAVAILABLE, 503 on /export, with a
// retry time on both; a store that fails unexpectedly (its boards table
// gone) is INTERNAL, 500 on /export, logged with its detail and shown
// without it; a request the export refuses is BAD_USER_INPUT, 400.
func TestErrorCodesOverTransports(t *testing.T) {
	t.Parallel()
	serve := func(t *testing.T, st store.Reader) *apitest.Bundle {
		return apitest.Setup(t, func(c *server.Config) { c.Graph.Boards, c.Graph.Stored, c.ExportStore = st, st, st })
	}
	t.Run("unavailable", func(t *testing.T) {
		t.Parallel()
		st := sqlitetest.OpenTemp(t)
		b := serve(t, st)
		st.Close()
		exp := b.Raw(t, http.MethodGet, b.Base+"/export/8.csv", nil)
		if exp.Status != http.StatusServiceUnavailable || exp.Code() != "UNAVAILABLE" || exp.Header.Get("Retry-After") != "1" {
			t.Errorf("/export: %d %s Retry-After %q; want 503 UNAVAILABLE Retry-After 1", exp.Status, exp.Raw, exp.Header.Get("Retry-After"))
		}
		gql := b.Post(t, apitest.Request{Query: `{ board(n: 8) { state } }`})
		if gql.Code() != "UNAVAILABLE" || gql.Errors[0].Extensions["retryAfter"] != float64(1) || !strings.Contains(gql.Message(), "try again") {
			t.Errorf("/graphql: %s; want UNAVAILABLE with retryAfter 1", gql.Raw)
		}
		if gql.Status != http.StatusOK {
			t.Errorf("/graphql: status %d; want 200, a field's error leaving the answer's status alone", gql.Status)
		}
	})
	t.Run("internal", func(t *testing.T) {
		t.Parallel()
		st := pgtest.OpenSchema(t)
		b := serve(t, st)
		// The boards table replaced by a view whose reading fails: an
		// error the store has no code for (a missing table would be
		// UNAVAILABLE, the schema behind).
		if _, err := st.Pool().Exec(context.Background(), `ALTER TABLE boards RENAME TO boards_hidden;
			CREATE FUNCTION broken_boards() RETURNS SETOF boards_hidden LANGUAGE plpgsql
				AS $$ BEGIN RAISE EXCEPTION 'the table of boards is broken'; END $$;
			CREATE VIEW boards AS SELECT * FROM broken_boards()`); err != nil {
			t.Fatal(err)
		}
		exp := b.Raw(t, http.MethodGet, b.Base+"/export/8.csv", nil)
		if exp.Status != http.StatusInternalServerError || exp.Code() != "INTERNAL" || !strings.Contains(exp.Message(), "(ref ") || strings.Contains(exp.Message(), "boards") {
			t.Errorf("/export: %d %s; want 500 INTERNAL with a reference and without the detail", exp.Status, exp.Raw)
		}
		gql := b.Post(t, apitest.Request{Query: `{ board(n: 8) { state } }`})
		if gql.Code() != "INTERNAL" || !strings.Contains(gql.Message(), "(ref ") || strings.Contains(gql.Message(), "boards") {
			t.Errorf("/graphql: %s; want INTERNAL with a reference and without the detail", gql.Raw)
		}
		if logs := b.Logs.String(); !strings.Contains(logs, "the table of boards is broken") {
			t.Errorf("the detail is not logged:\n%s", logs)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		t.Parallel()
		b := serve(t, sqlitetest.OpenTemp(t))
		exp := b.Raw(t, http.MethodGet, b.Base+"/export/33.csv", nil)
		if exp.Status != http.StatusBadRequest || exp.Code() != "BAD_USER_INPUT" || exp.Header.Get("Retry-After") != "" {
			t.Errorf("/export/33.csv: %d %s; want 400 BAD_USER_INPUT without Retry-After", exp.Status, exp.Raw)
		}
	})
}
