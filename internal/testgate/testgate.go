// Package testgate gates the test suites that need what a machine may
// lack (a Postgres server, a browser, Node.js's packages, the sqlite3
// shell). Where that is missing, a test is skipped, or fails when its
// suite's REQUIRE variable is 1 (as .ci/run sets them all).
//
// `go test ./...` shows only "ok" for a package that passed, whatever its
// tests printed, so a skip is also made visible outside the go command's
// output, without writing to another process's descriptors: it is
// appended to a file of the module's skips (see Log; `go run
// ./internal/testgate/cmd/skips` prints the last run's), and written to
// the terminal (/dev/tty) when the tests run at one. `go test -json`
// reports the same skips as its own "skip" events.
package testgate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Suite is a set of tests that needs something outside Go.
type Suite struct {
	// Name says what the suite tests, e.g. "the Postgres store tests".
	Name string
	// Require is the variable that turns a skip into a failure, e.g.
	// NQUEENS_REQUIRE_POSTGRES.
	Require string
	// Enable says how to run the suite, e.g. "set NQUEENS_TEST_DATABASE_URL
	// to a Postgres server (docs/TESTING.md)".
	Enable string
}

// Missing is called by a test of s that cannot run here, why saying what
// is missing: it fails tb when s.Require is 1, else skips it and records
// the skip. The record names the test, so that of a suite's tests only
// those skipped are said to be.
func (s Suite) Missing(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv(s.Require) == "1" {
		tb.Fatalf("%s cannot run: %s (%s=1 requires them); to run them: %s", s.Name, why, s.Require, s.Enable)
	}
	msg := fmt.Sprintf("skipped %s: %s; to run them: %s (%s=1 makes this a failure)", s.Name, why, s.Enable, s.Require)
	notice := fmt.Sprintf("nqueens tests: %s %s %s", packageDir(), tb.Name(), msg)
	appendToLog(notice)
	// The terminal hears of each reason once per test binary: a suite of
	// a hundred tests that all lack one server is one line, and of a
	// suite whose tests lack different tools, each tool is named.
	if _, told := toldTTY.LoadOrStore(s.Name+"\x00"+why, struct{}{}); !told {
		writeTTY(notice + " (the record lists every test skipped: go run ./internal/testgate/cmd/skips)")
	}
	tb.Skip(msg)
}

var toldTTY sync.Map // suite name and reason → struct{}: said once per test binary

// appendToLog appends notice to the module's skips file, in one write of
// one line, which O_APPEND keeps whole among the test binaries that go
// test runs at once.
func appendToLog(notice string) {
	line := Entry{Time: time.Now().UTC(), Run: os.Getppid(), Notice: notice}.String() + "\n"
	if path, err := Log(); err == nil {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			f.WriteString(line)
			f.Close()
		}
	}
}

// writeTTY writes line to the terminal the tests run at, if any: the
// process's own controlling terminal, not another process's descriptor.
func writeTTY(line string) {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		tty.WriteString(line + "\n")
		tty.Close()
	}
}

// Entry is one line of the skips file: when, which run of the go command
// (its process id, the test binary's parent) and the notice.
type Entry struct {
	Time   time.Time
	Run    int
	Notice string
}

// String is the entry's line: time, run and notice separated by tabs.
func (e Entry) String() string {
	return e.Time.Format(time.RFC3339) + "\t" + strconv.Itoa(e.Run) + "\t" + e.Notice
}

// ParseEntry reads a line String wrote.
func ParseEntry(line string) (Entry, error) {
	parts := strings.SplitN(line, "\t", 3)
	if len(parts) != 3 {
		return Entry{}, fmt.Errorf("not a skip record: %q", line)
	}
	at, err := time.Parse(time.RFC3339, parts[0])
	if err != nil {
		return Entry{}, fmt.Errorf("not a skip record: %q: %w", line, err)
	}
	run, err := strconv.Atoi(parts[1])
	if err != nil {
		return Entry{}, fmt.Errorf("not a skip record: %q: %w", line, err)
	}
	return Entry{Time: at, Run: run, Notice: parts[2]}, nil
}

// Log is the path of the skips file of the module the working directory
// is in: in the temporary directory, named by a hash of the module's root
// so that two checkouts keep theirs apart.
func Log() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(os.TempDir(), "nqueens-test-skips-"+hex.EncodeToString(sum[:6])+".log"), nil
}

// moduleRoot is the folder of the go.mod above the working directory.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}

// packageDir is the folder of the package under test, from the module's
// root (go test runs a package's tests in its folder).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	root, err := moduleRoot()
	if err != nil {
		return wd
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil {
		return wd
	}
	return filepath.ToSlash(rel)
}

// LastRun is the entries of the last run of the go command that the
// skips file records (the run of its last line), in order.
func LastRun(entries []Entry) []Entry {
	if len(entries) == 0 {
		return nil
	}
	run := entries[len(entries)-1].Run
	var last []Entry
	for _, e := range entries {
		if e.Run == run {
			last = append(last, e)
		}
	}
	return last
}
