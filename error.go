// Package nqueens holds what every layer of the service shares: the error
// type and its codes, in the style of benbjohnson/wtf. The store, the
// precompute, the export and the API return these errors; the transports
// map their codes to HTTP statuses and GraphQL codes in one table
// (server/errors.go).
package nqueens

import (
	"errors"
	"fmt"
)

// Error codes, in the style of benbjohnson/wtf: few, stable, and meant for
// callers to branch on (the GraphQL layer maps them to extensions.code).
const (
	ECONFLICT    = "conflict"    // the action does not fit the current state
	EINTERNAL    = "internal"    // a bug or an unexpected database error
	EINVALID     = "invalid"     // bad input: says what is wrong and what is allowed
	ENOTFOUND    = "not_found"   // no such board, chunk or solution
	EUNAVAILABLE = "unavailable" // the database cannot be reached or is locked
)

// Error is an error of the service with a code and a message fit to show a user.
// Err, when set, is the underlying cause, for logs and errors.Is.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain: "" for
// nil, EINTERNAL for any other error.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err: the *Error's
// message, or "internal error" for any other error, whose text may carry
// details users should not see.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e) && e.Code != EINTERNAL:
		return e.Message
	}
	return "internal error"
}
