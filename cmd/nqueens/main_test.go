package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// The tests run the commands in-process, through run as main does, each
// with an environment of its own ("KEY=value" entries; nothing of the test
// process's) and its output in buffers. serve and worker run in the
// background until the test stops them as SIGTERM would, by ending their
// context. What needs the real binary (signals, a process killed, the
// build's version) is in process_test.go.

type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command line args and returns its exit code and output.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	return nqueensEnv(t, nil, args...)
}

// nqueensEnv is runCLI with environment variables ("KEY=value").
func nqueensEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	var stdout, stderr apitest.SyncBuffer // River's goroutines log too
	code := run(t.Context(), args, console{lookupEnv: lookupIn(env), stdout: &stdout, stderr: &stderr})
	return result{code, stdout.String(), stderr.String()}
}

// lookupIn looks variables up in env ("KEY=value", the last one wins) as
// os.LookupEnv does in a process's environment.
func lookupIn(env []string) func(string) (string, bool) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return func(key string) (string, bool) {
		v, ok := vars[key]
		return v, ok
	}
}

// ok runs the command line and fails the test unless it exits 0 with
// nothing on stderr.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := runCLI(t, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("nqueens %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// serving is a command running in the background until stopped: serve or
// worker, in-process (background) or the real binary (spawn).
type serving struct {
	url            string // serve's GraphQL endpoint, once waitServing has read it
	stdout, stderr *apitest.SyncBuffer
	terminate      func()        // what SIGTERM does
	done           chan struct{} // closed once it has exited
	code           int           // its exit code, once done
	cmd            *exec.Cmd     // the real binary's process; nil in-process
}

// background runs the command line args in-process until the test stops
// it (or ends).
func background(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{stdout: &apitest.SyncBuffer{}, stderr: &apitest.SyncBuffer{}, terminate: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.code = run(ctx, args, console{lookupEnv: lookupIn(env), stdout: s.stdout, stderr: s.stderr})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(time.Minute):
			t.Errorf("nqueens %s still runs a minute after the test; stderr:\n%s", strings.Join(args, " "), s.stderr.String())
		}
	})
	return s
}

// exited reports whether the command has exited.
func (s *serving) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// waitFor waits until the command has logged want on stderr, failing the
// test if it exits first.
func (s *serving) waitFor(t *testing.T, timeout time.Duration, want string) {
	t.Helper()
	eventually.True(t, timeout, func() string {
		if strings.Contains(s.stderr.String(), want) {
			return ""
		}
		if s.exited() {
			t.Fatalf("exited %d before logging %s; stderr:\n%s", s.code, want, s.stderr.String())
		}
		return "no " + want + " logged; stderr:\n" + s.stderr.String()
	})
}

// stop ends the command as SIGTERM does: it must shut down gracefully,
// exit 0 and log that it stopped.
func (s *serving) stop(t *testing.T) {
	t.Helper()
	s.terminate()
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("no exit 15s after SIGTERM; stderr:\n%s", s.stderr.String())
	}
	if s.code != 0 {
		t.Fatalf("after SIGTERM: exit %d; stderr:\n%s", s.code, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "stopped") {
		t.Errorf("stderr lacks the shutdown log:\n%s", s.stderr.String())
	}
}

// keyValues parses count's text output, one "key value" line per field.
func keyValues(t *testing.T, out string) map[string]string {
	t.Helper()
	kv := map[string]string{}
	for line := range strings.Lines(out) {
		k, v, found := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if !found || strings.Contains(v, " ") {
			t.Fatalf("line %q is not \"key value\"", line)
		}
		if _, dup := kv[k]; dup {
			t.Fatalf("key %q twice in %q", k, out)
		}
		kv[k] = v
	}
	return kv
}

func wantCounts(t *testing.T, n int, got solver.Counts, ref oeis.Row) {
	t.Helper()
	want := solver.Counts{
		Total: ref.Total, Unique: ref.Unique,
		Orbit1: ref.OrbitOfSingle, Orbit2: ref.Orbit2, Orbit4: ref.Orbit4, Orbit8: ref.Orbit8,
	}
	if got != want {
		t.Errorf("N=%d: counts %+v, want %+v", n, got, want)
	}
}

func TestCountText(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for _, n := range []int{1, 2, 4, 8, 10} {
		kv := keyValues(t, ok(t, "count", strconv.Itoa(n)))
		keys := []string{"n", "total", "unique", "orbit1", "orbit2", "orbit4", "orbit8", "seconds"}
		if len(kv) != len(keys) {
			t.Errorf("N=%d: keys %v, want %v", n, kv, keys)
		}
		num := func(key string) uint64 {
			v, err := strconv.ParseUint(kv[key], 10, 64)
			if err != nil {
				t.Fatalf("N=%d: %s %q is not plain digits", n, key, kv[key])
			}
			return v
		}
		if got := num("n"); got != uint64(n) {
			t.Errorf("n %d, want %d", got, n)
		}
		wantCounts(t, n, solver.Counts{
			Total: num("total"), Unique: num("unique"),
			Orbit1: num("orbit1"), Orbit2: num("orbit2"), Orbit4: num("orbit4"), Orbit8: num("orbit8"),
		}, ref[n])
		if s, err := strconv.ParseFloat(kv["seconds"], 64); err != nil || s < 0 {
			t.Errorf("N=%d: seconds %q", n, kv["seconds"])
		}
	}
}

func TestCountJSON(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for _, args := range [][]string{
		{"count", "8", "--json"},
		{"count", "--json", "11"},
		{"count", "--workers", "2", "--json", "12"},
		{"count", "12", "--workers=1", "-json"},
		{"count", "1", "--json"},
	} {
		out := ok(t, args...)
		if strings.Count(out, "\n") != 1 {
			t.Errorf("%v: want one line, got %q", args, out)
		}
		var got struct {
			N int `json:"n"`
			solver.Counts
			Seconds *float64 `json:"seconds"`
		}
		dec := json.NewDecoder(strings.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%v: %v in %q", args, err, out)
		}
		if got.Seconds == nil || *got.Seconds < 0 {
			t.Errorf("%v: seconds missing or negative in %q", args, out)
		}
		wantCounts(t, got.N, got.Counts, ref[got.N])
		for _, key := range []string{`"n":`, `"total":`, `"unique":`, `"orbit1":`, `"orbit2":`, `"orbit4":`, `"orbit8":`} {
			if !strings.Contains(out, key) {
				t.Errorf("%v: %s missing in %q", args, key, out)
			}
		}
	}
}

// placements parses placement-format output, one solution per line.
func placements(t *testing.T, out string) []solver.Placement {
	t.Helper()
	var ps []solver.Placement
	for line := range strings.Lines(out) {
		fields := strings.Split(strings.TrimSuffix(line, "\n"), " ")
		p := make(solver.Placement, len(fields))
		for i, f := range fields {
			c, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("line %q: column %q is not a number", line, f)
			}
			p[i] = c
		}
		ps = append(ps, p)
	}
	return ps
}

// checkOrdered checks that ps are valid solutions of N in strictly
// increasing lexicographic order.
func checkOrdered(t *testing.T, n int, ps []solver.Placement) {
	t.Helper()
	for i, p := range ps {
		if err := solver.ValidateN(n, p); err != nil {
			t.Fatalf("solution %d %v: %v", i, p, err)
		}
		if i > 0 && ps[i-1].Compare(p) >= 0 {
			t.Fatalf("solution %d %v does not come after %v", i, p, ps[i-1])
		}
	}
}

func TestSolveAll(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for _, n := range []int{1, 4, 8, 10} {
		ps := placements(t, ok(t, "solve", strconv.Itoa(n), "--all", "--format", "placement"))
		if uint64(len(ps)) != ref[n].Total {
			t.Errorf("N=%d: %d lines, want %d", n, len(ps), ref[n].Total)
		}
		checkOrdered(t, n, ps)
	}
}

func TestSolveUnique(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for _, n := range []int{6, 8} {
		ps := placements(t, ok(t, "solve", strconv.Itoa(n), "--unique", "--all"))
		if uint64(len(ps)) != ref[n].Unique {
			t.Errorf("N=%d: %d unique lines, want %d", n, len(ps), ref[n].Unique)
		}
		checkOrdered(t, n, ps)
		for _, p := range ps {
			if !solver.IsCanonical(p) {
				t.Errorf("N=%d: %v is not canonical", n, p)
			}
		}
	}
	// --unique alone is the first canonical solution.
	first := placements(t, ok(t, "solve", "--unique", "8"))
	all := placements(t, ok(t, "solve", "8", "--unique", "--all"))
	if len(first) != 1 || first[0].Compare(all[0]) != 0 {
		t.Errorf("solve 8 --unique: %v, want [%v]", first, all[0])
	}
}

func TestSolveLimit(t *testing.T) {
	t.Parallel()
	got := placements(t, ok(t, "solve", "--limit", "7", "12"))
	all := placements(t, ok(t, "solve", "12", "--all"))
	if len(got) != 7 {
		t.Fatalf("--limit 7: %d lines", len(got))
	}
	for i := range got {
		if got[i].Compare(all[i]) != 0 {
			t.Errorf("--limit 7: solution %d is %v, want %v", i, got[i], all[i])
		}
	}
	// A limit beyond the total lists them all.
	if more := placements(t, ok(t, "solve", "6", "--limit", "1000")); len(more) != len(placements(t, ok(t, "solve", "6", "--all"))) {
		t.Errorf("solve 6 --limit 1000: %d lines", len(more))
	}
}

// TestSolveFormats checks each format on the first solution of N=4,
// [1,3,0,2], including the chess convention: files a.. are columns left to
// right, ranks 1.. count from the bottom row.
func TestSolveFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format, want string
	}{
		{"placement", "1 3 0 2\n"},
		{"rows", ".Q..\n...Q\nQ...\n..Q.\n"},
		{"matrix", "0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n"},
		{"chess", "a2 b4 c1 d3\n"},
	} {
		if got := ok(t, "solve", "4", "--limit", "1", "--format", tc.format); got != tc.want {
			t.Errorf("--format %s: got %q, want %q", tc.format, got, tc.want)
		}
	}
	// Two solutions: a blank line between drawn boards, none after.
	if got, want := ok(t, "solve", "4", "--all", "--format", "rows"), ".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n"; got != want {
		t.Errorf("--all --format rows: got %q, want %q", got, want)
	}
	if got, want := ok(t, "solve", "4", "--format=chess", "--all"), "a2 b4 c1 d3\na3 b1 c4 d2\n"; got != want {
		t.Errorf("--all --format chess: got %q, want %q", got, want)
	}
	// Without --all/--limit, formats draw the constructed solution.
	rows := ok(t, "solve", "8", "--format", "rows")
	if lines := strings.Split(strings.TrimSuffix(rows, "\n"), "\n"); len(lines) != 8 || strings.Count(rows, "Q") != 8 {
		t.Errorf("solve 8 --format rows: %q", rows)
	}
}

func TestSolveOne(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 40; n++ {
		if n == 2 || n == 3 {
			continue
		}
		ps := placements(t, ok(t, "solve", strconv.Itoa(n)))
		if len(ps) != 1 {
			t.Fatalf("solve %d: %d lines", n, len(ps))
		}
		if err := solver.ValidateN(n, ps[0]); err != nil {
			t.Errorf("solve %d: %v: %v", n, ps[0], err)
		}
	}
}

func TestSolveHuge(t *testing.T) {
	t.Parallel()
	const n = 1000000
	ps := placements(t, ok(t, "solve", strconv.Itoa(n)))
	if len(ps) != 1 {
		t.Fatalf("solve %d: %d lines", n, len(ps))
	}
	if err := solver.ValidateN(n, ps[0]); err != nil {
		t.Errorf("solve %d: %v", n, err)
	}
}

func TestSolveNone(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"solve", "2"},
		{"solve", "3"},
		{"solve", "3", "--all"},
		{"solve", "3", "--unique"},
		{"solve", "2", "--limit", "5", "--format", "rows"},
	} {
		out := ok(t, args...)
		if want := "N=" + args[1] + " has no solutions\n"; out != want {
			t.Errorf("%v: stdout %q, want %q", args, out, want)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		out := ok(t, args...)
		for _, want := range []string{"nqueens count N", "nqueens solve N"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: usage lacks %q:\n%s", args, want, out)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"count", "--help"}, "Usage: nqueens count N"},
		{[]string{"help", "solve"}, "Usage: nqueens solve N"},
		{[]string{"solve", "8", "-h"}, "Usage: nqueens solve N"},
	} {
		if out := ok(t, tc.args...); !strings.HasPrefix(out, tc.want) {
			t.Errorf("%v: %q, want it to start %q", tc.args, out, tc.want)
		}
	}
}

func TestBadArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // a word the message must contain
	}{
		{nil, "Usage"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"count"}, "missing N"},
		{[]string{"count", "abc"}, "1 to 32"},
		{[]string{"count", "0"}, "1 to 32"},
		{[]string{"count", "-3"}, "1 to 32"},
		{[]string{"count", "33"}, "1 to 32"},
		{[]string{"count", "8.5"}, "whole number"},
		{[]string{"count", "8", "9"}, "exactly one N"},
		{[]string{"count", "8", "--workers", "-1"}, "--workers"},
		{[]string{"count", "8", "--workers", "two"}, "workers"},
		{[]string{"count", "8", "--workers"}, "workers"},
		{[]string{"count", "8", "--bogus"}, "flags are"},
		{[]string{"solve"}, "missing N"},
		{[]string{"solve", "x"}, "whole number"},
		{[]string{"solve", "0"}, "whole number"},
		{[]string{"solve", "-8"}, "whole number"},
		{[]string{"solve", "99999999999999999999"}, "whole number"},
		{[]string{"solve", "8", "--format", "svg"}, "formats are"},
		{[]string{"solve", "8", "--all", "--limit", "3"}, "--all and --limit"},
		{[]string{"solve", "8", "--limit", "-1"}, "--limit"},
		{[]string{"solve", "8", "--limit", "0"}, "--limit"},
		{[]string{"solve", "8", "--limit", "many"}, "limit"},
		{[]string{"solve", "33", "--all"}, "1 to 32"},
		{[]string{"solve", "33", "--limit", "1"}, "1 to 32"},
		{[]string{"solve", "33", "--unique"}, "1 to 32"},
		{[]string{"solve", "1001", "--format", "rows"}, "1 to 1000"},
		{[]string{"solve", "1001", "--format", "matrix"}, "1 to 1000"},
		{[]string{"solve", "8", "--all=maybe"}, "all"},
	} {
		r := runCLI(t, tc.args...)
		if r.code != 2 {
			t.Errorf("%v: exit code %d, want 2", tc.args, r.code)
		}
		if r.stdout != "" {
			t.Errorf("%v: stdout %q, want nothing", tc.args, r.stdout)
		}
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr %q, want it to mention %q", tc.args, r.stderr, tc.want)
		}
		if tc.args != nil && strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line", tc.args, r.stderr)
		}
		if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: panicked: %s", tc.args, r.stderr)
		}
	}
}
