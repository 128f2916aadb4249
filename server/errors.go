package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// errorAnswer is how the transports answer an error with one of the
// service's codes: the HTTP status of a request it ends (/export; on
// /graphql a field's error leaves the answer's status alone), the GraphQL
// code, and when the client may try again (0: not a matter of time).
type errorAnswer struct {
	Status     int
	Code       apierror.Code
	RetryAfter time.Duration
}

// errorAnswers is the one table from the service's error codes (package
// nqueens) to the transports' answers, for /graphql's presenter and for
// /export alike.
var errorAnswers = map[string]errorAnswer{
	nqueens.EINVALID:  {http.StatusBadRequest, apierror.BadUserInput, 0},
	nqueens.ENOTFOUND: {http.StatusNotFound, apierror.NotFound, 0},
	nqueens.ECONFLICT: {http.StatusConflict, apierror.Conflict, 0},
	// A database that cannot be reached or is locked comes back soon, or
	// a health check takes the server out.
	nqueens.EUNAVAILABLE: {http.StatusServiceUnavailable, apierror.Unavailable, time.Second},
	nqueens.EINTERNAL:    {http.StatusInternalServerError, apierror.Internal, 0},
}

// answerOf returns err's answer by its service code: any error without
// one is EINTERNAL's.
func answerOf(err error) errorAnswer {
	if a, ok := errorAnswers[nqueens.ErrorCode(err)]; ok {
		return a
	}
	return errorAnswers[nqueens.EINTERNAL]
}

// apiError is the API's error for err: an *apierror.Error as it is, a
// *quota.Refusal as apierror.Refused says, any other by its service code
// (errorAnswers) with its message for users.
func apiError(err error) *apierror.Error {
	var e *apierror.Error
	var refusal *quota.Refusal
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &refusal):
		return apierror.Refused(refusal)
	}
	a := answerOf(err)
	return &apierror.Error{Code: a.Code, Message: nqueens.ErrorMessage(err), RetryAfter: a.RetryAfter, Err: err}
}

// failWith answers a request that err ends, outside GraphQL (/export):
// the status, code and Retry-After of its row in errorAnswers; internal
// errors are logged with their detail and a reference the message
// repeats.
func (s *Server) failWith(w http.ResponseWriter, r *http.Request, what string, err error) {
	a := answerOf(err)
	msg := nqueens.ErrorMessage(err)
	if a.Code == apierror.Internal {
		ref := newRef()
		s.cfg.Logger.ErrorContext(r.Context(), what+": internal error", "ref", ref, "error", err.Error())
		msg = "internal error (ref " + ref + "); the details are in the server's log"
	}
	if a.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(apierror.RetryAfterSeconds(a.RetryAfter)))
	}
	s.fail(w, r, a.Status, a.Code, "", msg)
}

// maxMessage bounds messages that echo input (gqlgen's JSON decoding
// errors quote the whole body).
const maxMessage = 400

// errorPresenter returns the presenter that gives every error an
// extensions.code: the API's errors keep their code and message, the
// service's are mapped by errorAnswers; deadlines become TIMEOUT;
// gqlgen's own errors keep their code (complexity, remapped to
// BAD_USER_INPUT with a reason) or, without one, are the client's mistake
// (BAD_USER_INPUT); anything else is INTERNAL, logged with its detail and
// a reference that the message repeats, and shown without the detail.
func errorPresenter(logger *slog.Logger, timeout time.Duration) graphql.ErrorPresenterFunc {
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

		var (
			e       *apierror.Error
			service *nqueens.Error
			refusal *quota.Refusal
		)
		switch {
		case errors.As(err, &e), errors.As(err, &refusal), errors.As(err, &service):
			e = apiError(err)
			out.Message = e.Message
			ext["code"] = string(e.Code)
			if e.Reason != "" {
				ext["reason"] = e.Reason
			}
			if e.RetryAfter > 0 {
				ext["retryAfter"] = apierror.RetryAfterSeconds(e.RetryAfter)
			}
			if e.Code == apierror.Internal {
				out.Message = logInternal(ctx, logger, out, err)
			}
		case errors.Is(err, context.DeadlineExceeded):
			ext["code"] = string(apierror.Timeout)
			out.Message = "the request did not finish within its time budget"
			if timeout > 0 {
				out.Message += fmt.Sprintf(" of %s", timeout)
			}
		case errors.Is(err, context.Canceled):
			ext["code"] = string(apierror.Unavailable)
			out.Message = "the request was cancelled (the client went away or the server is shutting down)"
		case ext["code"] == apierror.ReasonComplexity, ext["code"] == apierror.ReasonDepth:
			ext["reason"] = ext["code"]
			ext["code"] = string(apierror.BadUserInput)
		case ext["code"] != nil:
			// gqlgen's parse, validation and persisted-query codes.
		case gerr.Err == nil:
			// gqlgen's own message about the request (a body that is not
			// JSON, a variable of the wrong type).
			ext["code"] = string(apierror.BadUserInput)
		default:
			ext["code"] = string(apierror.Internal)
			out.Message = logInternal(ctx, logger, out, err)
		}
		if len(out.Message) > maxMessage {
			out.Message = out.Message[:maxMessage] + "…"
		}
		return out
	}
}

// newRef returns a reference that ties an internal error's message to
// its line in the log.
func newRef() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// logInternal logs err with its detail and returns the message to show.
func logInternal(ctx context.Context, logger *slog.Logger, out *gqlerror.Error, err error) string {
	ref := newRef()
	out.Extensions["ref"] = ref
	logger.ErrorContext(ctx, "graphql: internal error", "ref", ref, "path", out.Path.String(), "error", err.Error())
	return "internal error (ref " + ref + "); the details are in the server's log"
}

// recoverFunc returns the recover function: a panic in a resolver is
// logged with its stack and answered as an INTERNAL error; the server goes
// on serving.
func recoverFunc(logger *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "graphql: panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return &apierror.Error{Code: apierror.Internal, Message: "internal error", Err: fmt.Errorf("panic: %v", p)}
	}
}
