package eventually_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
)

// TestTrue: a condition that comes to hold ends the wait at once.
func TestTrue(t *testing.T) {
	t.Parallel()
	start := time.Now()
	calls := 0
	eventually.True(t, 10*time.Second, func() string {
		if calls++; calls < 3 {
			return fmt.Sprintf("call %d", calls)
		}
		return ""
	})
	if calls != 3 {
		t.Errorf("the condition was asked %d times, want 3", calls)
	}
	if took := time.Since(start); took < 2*eventually.Poll {
		t.Errorf("three calls took %s: it did not wait between them", took)
	}
}

// failing records a Fatalf instead of stopping the test that uses it.
type failing struct {
	testing.TB
	msg string
}

func (f *failing) Helper() {}

func (f *failing) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// TestTimeout: a condition that never holds fails the test after the
// timeout, with what it said last.
func TestTimeout(t *testing.T) {
	t.Parallel()
	f := &failing{TB: t}
	defer func() {
		if r := recover(); r != f {
			t.Fatalf("no failure: %v", r)
		}
		if want := "still not so after 200ms: not yet"; f.msg != want {
			t.Errorf("failed with %q, want %q", f.msg, want)
		}
	}()
	eventually.True(f, 200*time.Millisecond, func() string { return "not yet" })
}
