// Package apierror holds the API's own errors: the GraphQL codes that the
// service's error codes (package nqueens) do not cover — a request
// refused for its client's share or the server's total (RATE_LIMITED,
// UNAVAILABLE with a retry time), a search past its time budget
// (TIMEOUT), a mutation without the admin token (UNAUTHENTICATED) — with
// the reasons that refine them. The resolvers, the solver pool and the
// transports return them; server's presenter shows them as they are and
// maps the service's codes through its one table (server/errors.go).
package apierror

import (
	"fmt"
	"math"
	"time"
)

// Code is the machine-readable kind of an error, sent as extensions.code.
type Code string

// The codes the API answers with (besides gqlgen's own
// GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED and
// PERSISTED_QUERY_NOT_FOUND, which clients know).
const (
	BadUserInput    Code = "BAD_USER_INPUT"
	NotFound        Code = "NOT_FOUND"
	Conflict        Code = "CONFLICT"
	Unauthenticated Code = "UNAUTHENTICATED"
	Timeout         Code = "TIMEOUT"
	Unavailable     Code = "UNAVAILABLE"
	Internal        Code = "INTERNAL"
	// RateLimited is a request refused because its client holds its
	// share of something (requests a second, connections, memory, …):
	// other clients are served (HTTP 429).
	RateLimited Code = "RATE_LIMITED"
)

// Reasons refine BAD_USER_INPUT for the limits, sent as extensions.reason.
const (
	ReasonComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
	ReasonDepth      = "DEPTH_LIMIT_EXCEEDED"
	ReasonBodySize   = "BODY_TOO_LARGE"
)

// ReasonAPIOnly refines UNAVAILABLE for a mutation sent to a process that
// only reads (serve --api-only): another process takes writes, and trying
// this one again never helps.
const ReasonAPIOnly = "API_ONLY"

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

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// RetryAfterSeconds is d as HTTP's Retry-After writes it: whole seconds,
// at least 1.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
