package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/store"
)

// The resolvers' errors: their own are *apierror.Error with the API's
// code; a dependency's (store, precompute) keep the service's code
// (package nqueens), which server's presenter maps in its one table.

func newError(code apierror.Code, format string, a ...any) *apierror.Error {
	return apierror.Errorf(code, format, a...)
}

func badInput(format string, a ...any) *apierror.Error {
	return newError(apierror.BadUserInput, format, a...)
}

// internal wraps an unexpected error: logged with detail, shown without.
func internal(err error) *apierror.Error {
	return &apierror.Error{Code: apierror.Internal, Message: "internal error", Err: err}
}

// dependencyError says what was being done when a dependency (store,
// precompute, the solver pool) failed: the request's own end first (a
// dependency may report it as anything, a connection it cut for
// instance), then the dependency's error with its service code and a
// message for users (EUNAVAILABLE: try again shortly, or that the
// database's schema is behind; ENOTFOUND: not
// found; EINVALID and ECONFLICT: the dependency's reason); anything
// without a code is internal. An *apierror.Error passes as it is.
func dependencyError(ctx context.Context, what string, err error) error {
	var e *apierror.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return err
	case ctx.Err() != nil:
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	if errors.Is(err, context.Canceled) {
		return err // the client went away; the presenter says so
	}
	timeout := &apierror.Error{Code: apierror.Timeout, Message: what + " did not answer within the request's time budget", Err: err}
	if ctx.Err() != nil {
		return timeout
	}
	switch code := nqueens.ErrorCode(err); code {
	case nqueens.EUNAVAILABLE:
		if errors.Is(err, store.ErrSchemaBehind) {
			return &nqueens.Error{Code: code, Message: what + ": " + nqueens.ErrorMessage(err), Err: err}
		}
		return &nqueens.Error{Code: code, Message: what + " is unavailable right now; try again shortly", Err: err}
	case nqueens.ENOTFOUND:
		return &nqueens.Error{Code: code, Message: what + ": not found", Err: err}
	case nqueens.EINVALID, nqueens.ECONFLICT:
		return &nqueens.Error{Code: code, Message: nqueens.ErrorMessage(err), Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return timeout
	}
	return internal(fmt.Errorf("%s: %w", what, err))
}
