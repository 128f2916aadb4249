package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/quota"
)

// Code is the machine-readable kind of an error, sent as extensions.code.
type Code string

// The codes the API answers with (besides gqlgen's own
// GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED and
// PERSISTED_QUERY_NOT_FOUND, which clients know).
const (
	CodeBadUserInput    Code = "BAD_USER_INPUT"
	CodeNotFound        Code = "NOT_FOUND"
	CodeUnauthenticated Code = "UNAUTHENTICATED"
	CodeTimeout         Code = "TIMEOUT"
	CodeUnavailable     Code = "UNAVAILABLE"
	CodeInternal        Code = "INTERNAL"
	// CodeRateLimited is a request refused because its client holds its
	// share of something (requests a second, connections, memory, …):
	// other clients are served (HTTP 429).
	CodeRateLimited Code = "RATE_LIMITED"
)

// Reasons refine BAD_USER_INPUT for the limits, sent as extensions.reason.
const (
	ReasonComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
	ReasonDepth      = "DEPTH_LIMIT_EXCEEDED"
	ReasonBodySize   = "BODY_TOO_LARGE"
)

// Error is an error the API shows: Message (what is wrong and what is
// allowed) under extensions.code. Err, the cause, is logged for INTERNAL
// errors and never shown.
type Error struct {
	Code    Code
	Message string
	Reason  string // optional extensions.reason
	// RetryAfter, when set, is when the client may try again, sent as
	// extensions.retryAfter in whole seconds (and as HTTP's Retry-After).
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func newError(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

func badInput(format string, a ...any) *Error {
	return newError(CodeBadUserInput, format, a...)
}

// internal wraps an unexpected error: logged with detail, shown without.
func internal(err error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error", Err: err}
}

// dependencyError turns an error of a dependency (store, precompute) into
// the API's error, the one place where the service's error codes become
// extensions.code: the request's own end first (a dependency may report
// it as anything, a connection it cut for instance), then EUNAVAILABLE →
// UNAVAILABLE, ENOTFOUND → NOT_FOUND, EINVALID → BAD_USER_INPUT with the
// dependency's message, anything else INTERNAL. what says what was being
// done.
func dependencyError(ctx context.Context, what string, err error) error {
	var e *Error
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
	timeout := &Error{Code: CodeTimeout, Message: what + " did not answer within the request's time budget", Err: err}
	if ctx.Err() != nil {
		return timeout
	}
	switch nqueens.ErrorCode(err) {
	case nqueens.EUNAVAILABLE:
		return &Error{Code: CodeUnavailable, Message: what + " is unavailable right now; try again shortly", Err: err}
	case nqueens.ENOTFOUND:
		return &Error{Code: CodeNotFound, Message: what + ": not found", Err: err}
	case nqueens.EINVALID:
		return &Error{Code: CodeBadUserInput, Message: nqueens.ErrorMessage(err), Err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return timeout
	}
	return internal(fmt.Errorf("%s: %w", what, err))
}

// maxMessage bounds messages that echo input (gqlgen's JSON decoding
// errors quote the whole body).
const maxMessage = 400

// ErrorPresenter returns the presenter that gives every error an
// extensions.code: our *Error keeps its code and message; deadlines become
// TIMEOUT; gqlgen's own errors keep their code (complexity, remapped to
// BAD_USER_INPUT with a reason) or, without one, are the client's mistake
// (BAD_USER_INPUT); anything else is INTERNAL, logged with its detail and a
// reference that the message repeats, and shown without the detail.
func ErrorPresenter(logger *slog.Logger, timeout time.Duration) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		out := &gqlerror.Error{
			Message:   gerr.Message,
			Path:      gerr.Path,
			Locations: gerr.Locations,
			Rule:      gerr.Rule,
		}
		ext := map[string]any{}
		for k, v := range gerr.Extensions {
			ext[k] = v
		}
		out.Extensions = ext

		var e *Error
		var refusal *quota.Refusal
		if errors.As(err, &refusal) && !errors.As(err, &e) {
			e = Refused(refusal)
		}
		switch {
		case e != nil || errors.As(err, &e):
			out.Message = e.Message
			ext["code"] = string(e.Code)
			if e.Reason != "" {
				ext["reason"] = e.Reason
			}
			if e.RetryAfter > 0 {
				ext["retryAfter"] = RetryAfterSeconds(e.RetryAfter)
			}
			if e.Code == CodeInternal {
				out.Message = logInternal(ctx, logger, out, err)
			}
		case errors.Is(err, context.DeadlineExceeded):
			ext["code"] = string(CodeTimeout)
			out.Message = "the request did not finish within its time budget"
			if timeout > 0 {
				out.Message += fmt.Sprintf(" of %s", timeout)
			}
		case errors.Is(err, context.Canceled):
			ext["code"] = string(CodeUnavailable)
			out.Message = "the request was cancelled (the client went away or the server is shutting down)"
		case ext["code"] == ReasonComplexity, ext["code"] == ReasonDepth:
			ext["reason"] = ext["code"]
			ext["code"] = string(CodeBadUserInput)
		case ext["code"] != nil:
			// gqlgen's parse, validation and persisted-query codes.
		case gerr.Err == nil:
			// gqlgen's own message about the request (a body that is not
			// JSON, a variable of the wrong type).
			ext["code"] = string(CodeBadUserInput)
		default:
			ext["code"] = string(CodeInternal)
			out.Message = logInternal(ctx, logger, out, err)
		}
		if len(out.Message) > maxMessage {
			out.Message = out.Message[:maxMessage] + "…"
		}
		return out
	}
}

// logInternal logs err with its detail and returns the message to show.
func logInternal(ctx context.Context, logger *slog.Logger, out *gqlerror.Error, err error) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	ref := hex.EncodeToString(b[:])
	out.Extensions["ref"] = ref
	logger.ErrorContext(ctx, "graphql: internal error", "ref", ref, "path", out.Path.String(), "error", err.Error())
	return "internal error (ref " + ref + "); the details are in the server's log"
}

// RecoverFunc returns the recover function: a panic in a resolver is
// logged with its stack and answered as an INTERNAL error; the server goes
// on serving.
func RecoverFunc(logger *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "graphql: panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return internal(fmt.Errorf("panic: %v", p))
	}
}
