package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/store"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// translate turns driver errors into store errors where callers can act on
// them: a file locked by another writer past the busy timeout, one that
// cannot be opened, or a connection database/sql has closed is
// EUNAVAILABLE, and so is a table or column missing (the schema is behind
// this binary); a constraint on a key ECONFLICT. Store errors and the
// caller's context errors pass through; anything else stays as it is
// (EINTERNAL to nqueens.ErrorCode).
func translate(err error) error {
	var se *nqueens.Error
	var lite *sqlite.Error
	switch {
	case err == nil, errors.As(err, &se), errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, sql.ErrConnDone):
		return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "the connection to the database file is closed", Err: err}
	case errors.As(err, &lite):
		switch lite.Code() & 0xff { // the primary code of an extended one
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "the database file is locked by another writer", Err: err}
		case sqlite3.SQLITE_CANTOPEN:
			return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "cannot open the database file", Err: err}
		}
		switch lite.Code() {
		case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
			return &nqueens.Error{Code: nqueens.ECONFLICT, Message: "the row exists already", Err: err}
		case sqlite3.SQLITE_ERROR:
			// SQLite has no code of its own for a missing table or column.
			if msg := lite.Error(); strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") {
				return store.SchemaBehind(err)
			}
		}
	}
	return err
}

// classify is the store's edge for errors (store.Checked calls it on
// every error a method returns): translate's codes, and EUNAVAILABLE for
// what a closed store answers. database/sql reports its closed pools with an error it does not
// export; the store knows it closed them.
func (s *queries) classify(err error) error {
	err = translate(err)
	var se *nqueens.Error
	if s.closed.Load() && !errors.As(err, &se) && !errors.Is(err, context.Canceled) {
		return &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "the store is closed", Err: err}
	}
	return err
}
