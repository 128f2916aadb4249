// Package eventually waits in tests for what happens in its own time (a
// board finishing, a socket closing, a process answering) instead of
// sleeping a guessed while: it polls a condition until it holds or a
// deadline passes, and the test fails saying what was still not so.
package eventually

import (
	"testing"
	"time"
)

// Poll is how often the condition is asked.
const Poll = 50 * time.Millisecond

// True waits until cond returns "" (it holds), polling every Poll, and
// fails tb after timeout with the last thing cond said was not so.
func True(tb testing.TB, timeout time.Duration, cond func() (notYet string)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := cond()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("still not so after %s: %s", timeout, why)
		}
		time.Sleep(Poll)
	}
}
