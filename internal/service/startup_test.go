package service

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	b := backoff{first: 500 * time.Millisecond, max: 15 * time.Second}
	for failed, full := range map[int]time.Duration{
		1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 5: 8 * time.Second,
		6: 15 * time.Second, 7: 15 * time.Second, 100: 15 * time.Second,
	} {
		for range 100 {
			if d := b.delay(failed); d > full || d < full*3/4 {
				t.Fatalf("delay after %d failures: %s, want between %s and %s", failed, d, full*3/4, full)
			}
		}
	}
}

// TestWhileUnreachable: an unreachable Postgres is retried, logged at
// warn level with the attempt, until it answers; any other error, or a
// SQLite file that cannot be opened, ends the wait at once, and so does
// the context.
func TestWhileUnreachable(t *testing.T) {
	t.Parallel()
	fast := backoff{first: time.Millisecond, max: 2 * time.Millisecond}
	db := Database{URL: "postgres://postgres@127.0.0.1:1/nqueens"}
	unreachable := nqueens.Errorf(nqueens.EUNAVAILABLE, "cannot connect to Postgres")
	ctx := context.Background()

	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	calls := 0
	err := whileUnreachable(ctx, db, logger, fast, func(context.Context) error {
		if calls++; calls < 3 {
			return unreachable
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("unreachable twice, then open: %v after %d attempts", err, calls)
	}
	for _, want := range []string{"level=WARN", "attempt=1", "attempt=2", "retry_in=", "cannot connect to Postgres"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}

	bad := nqueens.Errorf(nqueens.EINVALID, "bad Postgres URL")
	calls = 0
	err = whileUnreachable(ctx, db, logger, fast, func(context.Context) error { calls++; return bad })
	if !errors.Is(err, bad) || calls != 1 {
		t.Errorf("a bad URL: %v after %d attempts; want it at once", err, calls)
	}

	calls = 0
	sqlite := Database{Path: "/nonexistent/nqueens.db"}
	cannotOpen := nqueens.Errorf(nqueens.EUNAVAILABLE, "cannot open the database file")
	err = whileUnreachable(ctx, sqlite, logger, fast, func(context.Context) error { calls++; return cannotOpen })
	if !errors.Is(err, cannotOpen) || calls != 1 {
		t.Errorf("a SQLite file that cannot be opened: %v after %d attempts; want it at once", err, calls)
	}

	cctx, cancel := context.WithCancel(ctx)
	slow := backoff{first: time.Hour, max: time.Hour}
	time.AfterFunc(10*time.Millisecond, cancel)
	err = whileUnreachable(cctx, db, logger, slow, func(context.Context) error { return unreachable })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while waiting: %v", err)
	}
}
