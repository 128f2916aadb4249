// Package testgate gates the test suites that need what a machine may
// lack (a Postgres server, a browser, Node.js's packages, the sqlite3
// shell). Where that is missing, a suite is skipped, or fails when its
// REQUIRE variable is 1 (as .ci/run sets them all), and says so where
// the developer sees it: `go test ./...` shows only "ok" for a package
// that passed, whatever its tests printed, so the skip is also written to
// the go command's own standard error, once per suite and test binary.
package testgate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// Suite is a set of tests that needs something outside Go.
type Suite struct {
	// Name says what the suite tests, e.g. "the Postgres store tests".
	Name string
	// Require is the variable that turns a skip into a failure, e.g.
	// NQUEENS_REQUIRE_POSTGRES.
	Require string
	// Enable says how to run the suite, e.g. "set NQUEENS_TEST_DATABASE_URL
	// to a Postgres server (README, Tests)".
	Enable string
}

var told sync.Map // suite name → struct{}: said once per test binary

// Missing is called by a test of s that cannot run here, why saying what
// is missing: it fails tb when s.Require is 1, else skips it and reports
// the skip.
func (s Suite) Missing(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv(s.Require) == "1" {
		tb.Fatalf("%s cannot run: %s (%s=1 requires them); to run them: %s", s.Name, why, s.Require, s.Enable)
	}
	msg := fmt.Sprintf("skipped %s: %s; to run them: %s (%s=1 makes this a failure)", s.Name, why, s.Enable, s.Require)
	if _, done := told.LoadOrStore(s.Name, struct{}{}); !done {
		w := goStderr()
		fmt.Fprintf(w, "nqueens tests in %s: %s\n", packageDir(), msg)
		if c, ok := w.(io.Closer); ok && w != os.Stderr {
			c.Close()
		}
	}
	tb.Skip(msg)
}

// packageDir is the folder of the package under test, from the module's
// root (go test runs a package's tests in its folder).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			return wd
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}

// goStderr is the standard error of the process that started the test
// binary (the go command, which keeps the binary's own output to itself
// when the package passes), where Linux's /proc reaches it; else the
// binary's own.
func goStderr() io.Writer {
	f, err := os.OpenFile("/proc/"+strconv.Itoa(os.Getppid())+"/fd/2", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return os.Stderr
	}
	return f
}
