package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestErrorCode(t *testing.T) {
	notFound := Errorf(ENOTFOUND, "N=%d has not been requested", 9)
	cause := errors.New("connection refused")
	for _, c := range []struct {
		err           error
		code, message string
	}{
		{nil, "", ""},
		{notFound, ENOTFOUND, "N=9 has not been requested"},
		{fmt.Errorf("wrapped: %w", notFound), ENOTFOUND, "N=9 has not been requested"},
		{&Error{Code: EUNAVAILABLE, Message: "cannot connect", Err: cause}, EUNAVAILABLE, "cannot connect"},
		{&Error{Code: EINTERNAL, Message: "secret detail"}, EINTERNAL, "internal error"},
		{cause, EINTERNAL, "internal error"},
	} {
		if got := ErrorCode(c.err); got != c.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", c.err, got, c.code)
		}
		if got := ErrorMessage(c.err); got != c.message {
			t.Errorf("ErrorMessage(%v) = %q, want %q", c.err, got, c.message)
		}
	}
	if err := (&Error{Code: EUNAVAILABLE, Message: "m", Err: context.DeadlineExceeded}); !errors.Is(err, context.DeadlineExceeded) {
		t.Error("an Error does not unwrap to its cause")
	}
}
