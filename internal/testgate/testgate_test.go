package testgate

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMissingRecordsTheSkippedTest: a skip is recorded in the module's
// skips file under this run, naming the test that was skipped and why,
// and the test is skipped, not failed.
func TestMissingRecordsTheSkippedTest(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // a record of its own
	t.Setenv("NQUEENS_REQUIRE_TESTGATE_TEST", "")
	suite := Suite{Name: "the gate's own tests", Require: "NQUEENS_REQUIRE_TESTGATE_TEST", Enable: "install nothing"}
	var skipped bool
	t.Run("python", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		suite.Missing(t, "python3 is not installed")
	})
	t.Run("sqlite3", func(t *testing.T) {}) // runs: not recorded
	if !skipped {
		t.Fatal("Missing did not skip the test")
	}
	entries := readLog(t)
	if len(entries) != 1 {
		t.Fatalf("recorded %d skips, want 1: %v", len(entries), entries)
	}
	e := entries[0]
	if e.Run != os.Getppid() {
		t.Errorf("run %d, want the go command's pid %d", e.Run, os.Getppid())
	}
	if time.Since(e.Time) > time.Hour || time.Since(e.Time) < -time.Minute {
		t.Errorf("recorded at %v, not now", e.Time)
	}
	for _, want := range []string{"internal/testgate", "TestMissingRecordsTheSkippedTest/python", "python3 is not installed", "NQUEENS_REQUIRE_TESTGATE_TEST=1"} {
		if !strings.Contains(e.Notice, want) {
			t.Errorf("notice %q does not say %q", e.Notice, want)
		}
	}
	if strings.Contains(e.Notice, "sqlite3") {
		t.Errorf("notice %q names a test that ran", e.Notice)
	}
}

func readLog(t *testing.T) []Entry {
	t.Helper()
	path, err := Log()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var entries []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		e, err := ParseEntry(sc.Text())
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	return entries
}

// TestLastRun keeps the entries of the last line's run, wherever they are.
func TestLastRun(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	entries := []Entry{{at, 10, "a"}, {at, 20, "b"}, {at, 10, "c"}, {at, 20, "d"}}
	got := LastRun(entries)
	if len(got) != 2 || got[0].Notice != "b" || got[1].Notice != "d" {
		t.Errorf("LastRun = %v, want b and d", got)
	}
	if LastRun(nil) != nil {
		t.Error("LastRun(nil) is not empty")
	}
}

// TestEntryRoundTrip: ParseEntry reads what String writes, tabs in the
// notice included, and refuses a line cut short.
func TestEntryRoundTrip(t *testing.T) {
	t.Parallel()
	e := Entry{time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC), 4242, "nqueens tests: web TestX skipped\tthe browser tests"}
	got, err := ParseEntry(e.String())
	if err != nil || got != e {
		t.Errorf("ParseEntry(%q) = %v, %v; want %v", e.String(), got, err, e)
	}
	if _, err := ParseEntry("2026-12-04T18:00:00Z\t42"); err == nil {
		t.Error("a line without its notice parsed")
	}
}
