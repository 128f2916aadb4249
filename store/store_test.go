package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nqueens/nqueens"
)

func TestErrorCode(t *testing.T) {
	notFound := nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has not been requested", 9)
	cause := errors.New("connection refused")
	for _, c := range []struct {
		err           error
		code, message string
	}{
		{nil, "", ""},
		{notFound, nqueens.ENOTFOUND, "N=9 has not been requested"},
		{fmt.Errorf("wrapped: %w", notFound), nqueens.ENOTFOUND, "N=9 has not been requested"},
		{&nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "cannot connect", Err: cause}, nqueens.EUNAVAILABLE, "cannot connect"},
		{&nqueens.Error{Code: nqueens.EINTERNAL, Message: "secret detail"}, nqueens.EINTERNAL, "internal error"},
		{cause, nqueens.EINTERNAL, "internal error"},
	} {
		if got := nqueens.ErrorCode(c.err); got != c.code {
			t.Errorf("nqueens.ErrorCode(%v) = %q, want %q", c.err, got, c.code)
		}
		if got := nqueens.ErrorMessage(c.err); got != c.message {
			t.Errorf("nqueens.ErrorMessage(%v) = %q, want %q", c.err, got, c.message)
		}
	}
	if err := (&nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "m", Err: context.DeadlineExceeded}); !errors.Is(err, context.DeadlineExceeded) {
		t.Error("an Error does not unwrap to its cause")
	}
}
