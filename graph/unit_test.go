package graph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// Unit tests of the pieces the HTTP tests cannot reach without a store:
// how errors are shown, and cursors under arbitrary input.

func TestErrorPresenter(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	present := ErrorPresenter(slog.New(slog.NewTextHandler(&logs, nil)), 10*time.Second)
	ctx := context.Background()
	secret := errors.New("dial tcp 10.0.0.7:5432: password authentication failed for user nqueens")

	for _, tt := range []struct {
		name       string
		err        error
		code, says string
		hidden     bool // the cause must not show
	}{
		{"ours", badInput("first must be from 0 to 1000, got -1"), "BAD_USER_INPUT", "first must be", false},
		{"plain error", secret, "INTERNAL", "internal error (ref ", true},
		{"wrapped internal", internal(fmt.Errorf("scan: %w", secret)), "INTERNAL", "internal error (ref ", true},
		{"store down", dependencyError(ctx, "reading board N=8 from the store", &nqueens.Error{Code: nqueens.EUNAVAILABLE, Message: "cannot connect to Postgres", Err: secret}), "UNAVAILABLE", "unavailable", true},
		{"store not found", dependencyError(ctx, "ranking a solution of N=8", nqueens.Errorf(nqueens.ENOTFOUND, "N=8 is not done")), "NOT_FOUND", "not found", false},
		{"store refuses", dependencyError(ctx, "asking for the precompute of N=20", nqueens.Errorf(nqueens.EINVALID, "N=20 is above the storage limit")), "BAD_USER_INPUT", "above the storage limit", false},
		{"store bug", dependencyError(ctx, "reading board N=8 from the store", &nqueens.Error{Code: nqueens.EINTERNAL, Message: "scan", Err: secret}), "INTERNAL", "internal error (ref ", true},
		{"store timeout", dependencyError(ctx, "listing solutions of N=16", context.DeadlineExceeded), "TIMEOUT", "time budget", false},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), "TIMEOUT", "10s", false},
		{"gqlgen parse", &gqlerror.Error{Message: "Expected Name", Extensions: map[string]any{"code": "GRAPHQL_PARSE_FAILED"}}, "GRAPHQL_PARSE_FAILED", "Expected Name", false},
		{"gqlgen request", gqlerror.Errorf("json request body could not be decoded: %s", strings.Repeat("x", 2000)), "BAD_USER_INPUT", "json request body", false},
		{"panic", RecoverFunc(slog.New(slog.NewTextHandler(&logs, nil)))(ctx, "index out of range"), "INTERNAL", "internal error", true},
	} {
		got := present(ctx, tt.err)
		if got.Extensions["code"] != tt.code || !strings.Contains(got.Message, tt.says) || len(got.Message) > maxMessage+3 {
			t.Errorf("%s: code %v, message %q; want %s, a message with %q", tt.name, got.Extensions["code"], got.Message, tt.code, tt.says)
		}
		if tt.hidden && strings.Contains(got.Message, "password") {
			t.Errorf("%s: the cause shows: %q", tt.name, got.Message)
		}
	}
	if !strings.Contains(logs.String(), "password authentication failed") || !strings.Contains(logs.String(), "index out of range") {
		t.Errorf("internal errors are not logged with their detail:\n%s", logs.String())
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
	var e *Error
	if err := dependencyError(expired, "listing solutions of N=8", cut); !errors.As(err, &e) || e.Code != CodeTimeout {
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
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeBadUserInput {
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

func parseQuery(q string) (*ast.QueryDocument, error) {
	return parser.ParseQuery(&ast.Source{Input: q})
}
