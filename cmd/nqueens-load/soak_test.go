package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// askedBoards is a precompute engine that only records what it was asked.
type askedBoards struct {
	mu sync.Mutex
	ns []int
}

func (a *askedBoards) Precompute(_ context.Context, req store.BoardRequest, _ *bool) (store.Board, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ns = append(a.ns, req.N)
	return store.Board{N: req.N, State: store.Pending}, nil
}

func (a *askedBoards) PrecomputeCount(context.Context, int, solver.Filter) (store.FilteredCount, error) {
	return store.FilteredCount{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "the soak asks for boards only")
}

// TestSoak runs a short soak against the real server on a SQLite store
// holding N=9: the precompute asked for with the token, every kind of the
// mix sent and answered without an error, and the memory of the server
// (this process) sampled from the start to the end.
func TestSoak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nqueens.db")
	if err := runFill(context.Background(), []string{"9", "--sqlite-path", path}, envOf(nil), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	st := sqlitetest.Open(t, path)
	asked := &askedBoards{}
	b := apitest.Setup(t, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
		c.Graph.Precompute, c.Graph.AdminToken = asked, "soak-token"
	})

	var out bytes.Buffer
	err := runSoak(context.Background(), []string{"--url", b.URL, "--n", "9", "--rate", "150", "--duration", "1500ms",
		"--sample-every", "500ms", "--server-pid", strconv.Itoa(os.Getpid()), "--precompute", "11",
		"--admin-token", "soak-token"}, &out)
	report := out.String()
	if err != nil {
		t.Fatalf("%v\n%s", err, report)
	}
	if len(asked.ns) != 1 || asked.ns[0] != 11 {
		t.Errorf("precompute asked for %v, want [11]", asked.ns)
	}
	for _, want := range []string{"asked for N=11: PENDING", "errors   0\n", "rss      start ", "board N=11 UNKNOWN"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if got := strings.Count(report, "sample   t="); got < 3 {
		t.Errorf("%d samples, want one at the start, one at least meanwhile and one at the end:\n%s", got, report)
	}
	requests := regexp.MustCompile(`requests (\d+) in`).FindStringSubmatch(report)
	if requests == nil {
		t.Fatalf("no request count:\n%s", report)
	}
	if n, _ := strconv.Atoi(requests[1]); n < 180 || n > 230 {
		t.Errorf("%d requests in 1.5 s at 150/s", n)
	}
	for _, k := range soakKinds {
		line := regexp.MustCompile(`(?m)^  ` + k.name + ` +(\d+) requests, 0 errors`).FindStringSubmatch(report)
		if line == nil || line[1] == "0" {
			t.Errorf("no answered %s requests:\n%s", k.name, report)
		}
	}
}

// TestSoakFailures checks that the soak counts a wrong answer as an error
// whatever is wrong with it, and fails when the precompute is refused.
func TestSoakFailures(t *testing.T) {
	good := vegeta.Result{Code: http.StatusOK, URL: "http://x/graphql#count", Body: []byte(`{"data":{"count":{"total":"92","unique":"12"}}}`)}
	bad := map[string]vegeta.Result{
		"refused":        {Error: "connection refused", URL: good.URL},
		"HTTP 500":       {Code: 500, URL: good.URL, Body: good.Body},
		"GraphQL error":  {Code: 200, URL: good.URL, Body: []byte(`{"errors":[{"message":"x"}],"data":{"count":{"total":"92"}}}`)},
		"wrong answer":   {Code: 200, URL: good.URL, Body: []byte(`{"data":{"count":null}}`)},
		"unknown kind":   {Code: 200, URL: "http://x/graphql#what", Body: good.Body},
		"answer of kind": {Code: 200, URL: "http://x/graphql#page", Body: good.Body},
	}
	tally := newSoakTally()
	tally.add(&good)
	for name, res := range bad {
		tally.add(&res)
		if requests, errs := tally.counts(); errs != requests-1 {
			t.Errorf("%s: not counted as an error (%d errors in %d requests)", name, errs, requests)
		}
	}
	var out bytes.Buffer
	tally.print(&out, time.Second, 7)
	for _, want := range []string{"requests 7 in 1s: 7.0/s (asked 7/s)", "errors   6\n", "  count            5 requests, 4 errors", "  page             1 requests, 1 errors"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}

	b := apitest.Setup(t, func(c *server.Config) { c.Graph.Precompute, c.Graph.AdminToken = &askedBoards{}, "right" })
	err := runSoak(context.Background(), []string{"--url", b.URL, "--n", "8", "--duration", "1s", "--precompute", "9", "--admin-token", "wrong"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "precompute N=9") {
		t.Errorf("soak with a wrong token: %v", err)
	}
}
