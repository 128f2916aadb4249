package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestMain lets the test binary stand in for nqueens-load when --floor
// starts its floor process (os.Executable is the test binary here).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		err := runFloor(ctx, os.Args[2:], os.Stdout)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLoad runs the load generator briefly against a real server (pages
// of N=8 from the solver): every request answered, none failed.
func TestLoad(t *testing.T) {
	b := apitest.Setup(t)
	var out bytes.Buffer
	err := runLoad(context.Background(), []string{"--url", b.URL, "--n", "8", "--first", "5", "--cursors", "30",
		"--concurrency", "4", "--duration", "500ms", "--warmup", "100ms"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"errors   0 (0.000%)", "status   200: ", "requests/s", "p99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestLoadWithFloor measures the server and the floor in turn: the floor
// answers the server's bytes (so every check passes on it too), and the
// ratio line is printed.
func TestLoadWithFloor(t *testing.T) {
	b := apitest.Setup(t)
	var out bytes.Buffer
	err := runLoad(t.Context(), []string{"--url", b.URL, "--n", "8", "--first", "5", "--cursors", "30",
		"--concurrency", "4", "--duration", "300ms", "--warmup", "0s", "--floor", "--rounds", "2"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	if got := strings.Count(text, "errors   0 (0.000%)"); got != 4 {
		t.Errorf("%d measures without errors; want 4 (2 rounds of server and floor):\n%s", got, text)
	}
	for _, want := range []string{"-- round 2: floor", "ratio    server/floor requests/s: median ", "(rounds "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestLoadGET: with --get the pages go as GET requests (the server logs
// them so) and are answered as the POSTs are; without a cache in front no
// X-Cache-Status is counted.
func TestLoadGET(t *testing.T) {
	b := apitest.Setup(t)
	var out bytes.Buffer
	err := runLoad(t.Context(), []string{"--url", b.URL, "--get", "--n", "8", "--first", "5", "--cursors", "30",
		"--concurrency", "2", "--duration", "300ms", "--warmup", "0s"}, &out)
	if err != nil || !strings.Contains(out.String(), "errors   0 (0.000%)") || !strings.Contains(out.String(), "target   GET ") {
		t.Fatalf("--get: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "cache    ") {
		t.Errorf("a cache line without a cache in front:\n%s", out.String())
	}
	logs := b.Logs.String()
	if gets, posts := strings.Count(logs, "method=GET path=/graphql"), strings.Count(logs, "method=POST path=/graphql"); gets == 0 || posts != 0 {
		t.Errorf("the server logged %d GETs and %d POSTs of /graphql; want only GETs", gets, posts)
	}
}

// TestLoadCompressed: answers asked for compressed are checked once
// decoded, and come compressed (fewer bytes than plain).
func TestLoadCompressed(t *testing.T) {
	b := apitest.Setup(t)
	perAnswer := map[string]float64{}
	for _, enc := range []string{"", "gzip", "zstd"} {
		var out bytes.Buffer
		args := []string{"--url", b.URL, "--n", "8", "--first", "40", "--cursors", "10",
			"--concurrency", "2", "--duration", "300ms", "--warmup", "0s"}
		if enc != "" {
			args = append(args, "--encoding", enc)
		}
		if err := runLoad(t.Context(), args, &out); err != nil || !strings.Contains(out.String(), "errors   0 (0.000%)") {
			t.Fatalf("--encoding %q: %v\n%s", enc, err, out.String())
		}
		var n float64
		if _, err := fmt.Sscanf(out.String()[strings.Index(out.String(), "bytes in "):], "bytes in %f per answer", &n); err != nil {
			t.Fatalf("--encoding %q: %v\n%s", enc, err, out.String())
		}
		perAnswer[enc] = n
	}
	if perAnswer["gzip"] >= perAnswer[""]/2 || perAnswer["zstd"] >= perAnswer[""]/2 {
		t.Errorf("bytes per answer %v: want the compressed ones under half the plain", perAnswer)
	}
	if err := runLoad(t.Context(), []string{"--url", b.URL, "--encoding", "br"}, &bytes.Buffer{}); err == nil {
		t.Error("--encoding br accepted")
	}
}

// TestFloorRefusesBadArguments: the floor says what it needs.
func TestFloorRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{{}, {"--body", "x", "extra"}, {"--body", "x", "--header", "no colon"}} {
		err := runFloor(t.Context(), args, &bytes.Buffer{})
		if _, ok := err.(usageError); !ok {
			t.Errorf("floor %q: %v; want a usage error", args, err)
		}
	}
}

// envOf is an environment of vars only.
func envOf(vars map[string]string) lookupEnv {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// TestFill stores a board through the precompute engine, as nqueens
// precompute --wait does, in the SQLite file the environment names, and
// leaves a done board alone.
func TestFill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nqueens.db")
	env := envOf(map[string]string{"NQUEENS_SQLITE_PATH": path})
	for _, want := range []string{"N=9 stored: 352 solutions", "N=9 is done already: 352 solutions"} {
		var out bytes.Buffer
		if err := runFill(context.Background(), []string{"9"}, env, &out); err != nil || !strings.Contains(out.String(), want) {
			t.Fatalf("fill 9: %v, %q; want %q", err, out.String(), want)
		}
	}
	st := sqlitetest.Open(t, path)
	b, err := st.Board(context.Background(), 9)
	if err != nil || b.State != store.Done || !b.StoresSolutions || b.Counts.Unique != 46 {
		t.Fatalf("board 9 after fill: %+v, %v", b, err)
	}
	if err := runFill(context.Background(), []string{"17"}, env, &bytes.Buffer{}); err == nil {
		t.Error("fill 17 (beyond what is stored) succeeded")
	}
}

// TestMedian: the middle value, or the mean of the two middle ones.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v; want %v", c.xs, got, c.want)
		}
	}
}

// TestCacheStatusLine: the answers' X-Cache-Status are counted and the
// hit ratio is the HITs among all answers; without the header there is no
// such line.
func TestCacheStatusLine(t *testing.T) {
	for _, tt := range []struct {
		statuses map[string]uint64
		want     string
	}{
		{map[string]uint64{"HIT": 3, "MISS": 1}, "cache    HIT: 3, MISS: 1 (X-Cache-Status); hit ratio 75.00%\n"},
		{map[string]uint64{"HIT": 2, "": 2}, "cache    HIT: 2, none: 2 (X-Cache-Status); hit ratio 50.00%\n"},
		{map[string]uint64{"": 4}, ""},
	} {
		r := &result{requests: 4, elapsed: time.Second, codes: map[uint16]uint64{200: 4}, cacheStatus: tt.statuses}
		var out bytes.Buffer
		r.print(&out)
		line := ""
		if i := strings.Index(out.String(), "cache    "); i >= 0 {
			line = out.String()[i:]
			line = line[:strings.IndexByte(line, '\n')+1]
		}
		if line != tt.want {
			t.Errorf("X-Cache-Status %v: cache line %q, want %q", tt.statuses, line, tt.want)
		}
	}
}
