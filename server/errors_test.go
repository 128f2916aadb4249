package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// TestErrorAnswers: every code of the service has its row, the rows the
// API documents: EINVALID 400 BAD_USER_INPUT, ENOTFOUND 404 NOT_FOUND,
// ECONFLICT 409 CONFLICT, EUNAVAILABLE 503 UNAVAILABLE with a retry time,
// EINTERNAL 500 INTERNAL; an error without a code is EINTERNAL's.
func TestErrorAnswers(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]errorAnswer{
		nqueens.EINVALID:     {http.StatusBadRequest, apierror.BadUserInput, 0},
		nqueens.ENOTFOUND:    {http.StatusNotFound, apierror.NotFound, 0},
		nqueens.ECONFLICT:    {http.StatusConflict, apierror.Conflict, 0},
		nqueens.EUNAVAILABLE: {http.StatusServiceUnavailable, apierror.Unavailable, time.Second},
		nqueens.EINTERNAL:    {http.StatusInternalServerError, apierror.Internal, 0},
	} {
		if got := answerOf(nqueens.Errorf(code, "x")); got != want {
			t.Errorf("%s: %+v, want %+v", code, got, want)
		}
	}
	if got := answerOf(errors.New("x")); got.Code != apierror.Internal {
		t.Errorf("an error without a code: %+v, want INTERNAL", got)
	}
}

// TestErrorPresenter: what /graphql shows of each kind of error: its code
// and a message that says what is wrong, never the cause of an internal
// one, which is logged.
func TestErrorPresenter(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	present := errorPresenter(logger, 10*time.Second)
	ctx := context.Background()
	secret := errors.New("dial tcp 10.0.0.7:5432: password authentication failed for user nqueens")

	for _, tt := range []struct {
		name, code, says string
		err              error
		hidden           bool // the cause must not show
	}{
		{"ours", "BAD_USER_INPUT", "first must be", apierror.Errorf(apierror.BadUserInput, "first must be from 0 to 1000, got -1"), false},
		{"plain error", "INTERNAL", "internal error (ref ", secret, true},
		{"wrapped internal", "INTERNAL", "internal error (ref ", &apierror.Error{Code: apierror.Internal, Message: "internal error", Err: fmt.Errorf("scan: %w", secret)}, true},
		{"store down", "UNAVAILABLE", "unavailable", &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "reading board N=8 from the store is unavailable right now", Err: secret}, true},
		{"store not found", "NOT_FOUND", "not found", nqueens.Errorf(nqueens.ENOTFOUND, "ranking a solution of N=8: not found"), false},
		{"store refuses", "BAD_USER_INPUT", "above the storage limit", nqueens.Errorf(nqueens.EINVALID, "N=20 is above the storage limit"), false},
		{"store conflict", "CONFLICT", "cannot fail", nqueens.Errorf(nqueens.ECONFLICT, "N=8 is done; a done board cannot fail"), false},
		{"store bug", "INTERNAL", "internal error (ref ", &nqueens.Error{Code: nqueens.EINTERNAL, Message: "scan", Err: secret}, true},
		{"refusal", "RATE_LIMITED", "as many as one client may have", &quota.Refusal{Pool: apierror.PoolExports, Scope: quota.Share, Share: 2, Total: 8}, false},
		{"deadline", "TIMEOUT", "10s", fmt.Errorf("query: %w", context.DeadlineExceeded), false},
		{"gqlgen parse", "GRAPHQL_PARSE_FAILED", "Expected Name", &gqlerror.Error{Message: "Expected Name", Extensions: map[string]any{"code": "GRAPHQL_PARSE_FAILED"}}, false},
		{"gqlgen request", "BAD_USER_INPUT", "json request body", gqlerror.Errorf("json request body could not be decoded: %s", strings.Repeat("x", 2000)), false},
		{"panic", "INTERNAL", "internal error", recoverFunc(logger)(ctx, "index out of range"), true},
	} {
		got := present(ctx, tt.err)
		if got.Extensions["code"] != tt.code || !strings.Contains(got.Message, tt.says) || len(got.Message) > maxMessage+3 {
			t.Errorf("%s: code %v, message %q; want %s, a message with %q", tt.name, got.Extensions["code"], got.Message, tt.code, tt.says)
		}
		if tt.hidden && strings.Contains(got.Message, "password") {
			t.Errorf("%s: the cause shows: %q", tt.name, got.Message)
		}
		if _, retry := got.Extensions["retryAfter"]; retry != (tt.code == "UNAVAILABLE" || tt.code == "RATE_LIMITED") {
			t.Errorf("%s: retryAfter %v", tt.name, got.Extensions["retryAfter"])
		}
	}
	if !strings.Contains(logs.String(), "password authentication failed") || !strings.Contains(logs.String(), "index out of range") {
		t.Errorf("internal errors are not logged with their detail:\n%s", logs.String())
	}
}
