package graph

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/solver"
)

// Unit tests of the pieces the HTTP tests cannot reach without a store:
// how errors are shown, and cursors under arbitrary input.

// TestDependencyError: a dependency's error keeps its service code (the
// server's table maps it) with a message that says what was being done;
// its cause does not show in the message.
func TestDependencyError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	secret := errors.New("dial tcp 10.0.0.7:5432: password authentication failed for user nqueens")
	for _, tt := range []struct {
		name, code, says string
		err              error
	}{
		{"store down", nqueens.EUNAVAILABLE, "reading board N=8 from the store is unavailable right now", &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "cannot connect to Postgres", Err: secret}},
		{"store not found", nqueens.ENOTFOUND, "ranking a solution of N=8: not found", nqueens.Errorf(nqueens.ENOTFOUND, "N=8 is not done")},
		{"store refuses", nqueens.EINVALID, "N=20 is above the storage limit", nqueens.Errorf(nqueens.EINVALID, "N=20 is above the storage limit")},
		{"store conflict", nqueens.ECONFLICT, "N=20 is being cancelled", nqueens.Errorf(nqueens.ECONFLICT, "N=20 is being cancelled")},
	} {
		err := dependencyError(ctx, strings.SplitN(tt.says, " is ", 2)[0], tt.err)
		if nqueens.ErrorCode(err) != tt.code || !strings.Contains(nqueens.ErrorMessage(err), tt.says) || strings.Contains(nqueens.ErrorMessage(err), "password") {
			t.Errorf("%s: code %q, message %q; want %s and a message with %q", tt.name, nqueens.ErrorCode(err), nqueens.ErrorMessage(err), tt.code, tt.says)
		}
	}
	var e *apierror.Error
	if err := dependencyError(ctx, "reading board N=8 from the store", &nqueens.Error{Code: nqueens.EINTERNAL, Message: "scan", Err: secret}); !errors.As(err, &e) || e.Code != apierror.Internal || e.Message != "internal error" {
		t.Errorf("store bug: %v, want INTERNAL with the message internal error", err)
	}
	if err := dependencyError(ctx, "listing solutions of N=16", context.DeadlineExceeded); !errors.As(err, &e) || e.Code != apierror.Timeout {
		t.Errorf("store timeout: %v, want TIMEOUT", err)
	}
}

// TestDependencyErrorAfterTheRequestEnded: once the request's context has
// ended, whatever a dependency says (a connection the driver cut, which
// the store calls unavailable) is the request's end: TIMEOUT for its
// deadline, the cancellation itself when the client went away.
func TestDependencyErrorAfterTheRequestEnded(t *testing.T) {
	t.Parallel()
	cut := nqueens.Errorf(nqueens.EUNAVAILABLE, "lost the connection to Postgres")
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	var e *apierror.Error
	if err := dependencyError(expired, "listing solutions of N=8", cut); !errors.As(err, &e) || e.Code != apierror.Timeout {
		t.Errorf("after the deadline: %v, want TIMEOUT", err)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := dependencyError(gone, "listing solutions of N=8", cut); !errors.Is(err, context.Canceled) || errors.As(err, &e) {
		t.Errorf("after the client went away: %v, want the cancellation", err)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 4, 8, 20} {
		for _, unique := range []bool{false, true} {
			ps, err := solver.After(n, nil, 3)
			if unique {
				ps, err = solver.UniqueAfter(n, nil, 3)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				c := EncodeCursor(unique, p)
				got, err := decodeCursor("after", c, unique, n)
				if err != nil || got.Compare(p) != 0 {
					t.Fatalf("N=%d unique %t: %v -> %q -> %v, %v", n, unique, p, c, got, err)
				}
				if _, err := decodeCursor("after", c, !unique, n); err == nil {
					t.Fatalf("a cursor of the listing unique=%t accepted in the other", unique)
				}
			}
		}
	}
}

// FuzzDecodeCursor: whatever the string, decoding either refuses it with
// BAD_USER_INPUT or yields a solution of N whose cursor decodes the same.
func FuzzDecodeCursor(f *testing.F) {
	f.Add("AQAIAAQHBQIGAQM", 8, false)
	f.Add("AQEIAAQHBQIGAQM", 8, true)
	f.Add("", 1, false)
	f.Add("AQABAA", 1, false)
	f.Add("////", 4, true)
	f.Fuzz(func(t *testing.T, s string, n int, unique bool) {
		if n < 1 || n > solver.MaxSearchN {
			return
		}
		p, err := decodeCursor("after", s, unique, n)
		if err != nil {
			var e *apierror.Error
			if !errors.As(err, &e) || e.Code != apierror.BadUserInput {
				t.Fatalf("%q: %v is not BAD_USER_INPUT", s, err)
			}
			return
		}
		if solver.ValidateN(n, p) != nil || unique && !solver.IsCanonical(p) {
			t.Fatalf("%q decoded to %v, not a solution of the listing", s, p)
		}
		if q, err := decodeCursor("after", EncodeCursor(unique, p), unique, n); err != nil || q.Compare(p) != 0 {
			t.Fatalf("%q: %v does not round-trip: %v %v", s, p, q, err)
		}
	})
}
