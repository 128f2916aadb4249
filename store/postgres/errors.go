package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/store"
)

// translate turns driver errors into store errors where callers can act on
// them: an unreachable or refusing server, or a connection cut in the
// middle of a conversation (the server restarted, the network failed), is
// EUNAVAILABLE, and so is a table or column missing (the schema is behind
// this binary); a unique violation ECONFLICT. Store errors and the
// caller's context errors pass through; anything else stays as it is
// (EINTERNAL to nqueens.ErrorCode).
func translate(err error) error {
	var se *nqueens.Error
	var connect *pgconn.ConnectError
	var pgErr *pgconn.PgError
	var netErr *net.OpError
	switch {
	case err == nil, errors.As(err, &se), errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &connect):
		return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "cannot connect to Postgres", Err: err}
	case errors.As(err, &pgErr) && unavailable(pgErr.Code):
		return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "Postgres is not available", Err: err}
	case errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "42703"): // undefined_table, undefined_column
		return store.SchemaBehind(err)
	case errors.As(err, &pgErr) && pgErr.Code == "23505": // unique_violation
		return &nqueens.Error{Code: nqueens.ECONFLICT, Message: "the row exists already", Err: err}
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "lost the connection to Postgres", Err: err}
	}
	return err
}

// unavailable reports whether a Postgres error code means the server
// cannot serve now, rather than that the request was wrong.
func unavailable(code string) bool {
	switch code {
	case "53300", // too_many_connections
		"57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
		return true
	}
	return strings.HasPrefix(code, "08") // connection_exception
}

// classify is the store's edge for errors (store.Checked calls it on
// every error a method returns): translate's codes, and EUNAVAILABLE for
// what a closed store answers (its pool refuses every query once closed).
func (s *queries) classify(err error) error {
	err = translate(err)
	var se *nqueens.Error
	if s.closed.Load() && !errors.As(err, &se) && !errors.Is(err, context.Canceled) {
		return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "the store is closed", Err: err}
	}
	return err
}
