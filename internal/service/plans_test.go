package service

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// openEngine opens a SQLite store in the test's directory and an engine
// over it with storage limit storeMaxN, not started.
func openEngine(t *testing.T, storeMaxN int) (*sqlite.Store, *Jobs) {
	t.Helper()
	st := sqlitetest.OpenTemp(t)
	cfg := precompute.DefaultConfig()
	cfg.Workers, cfg.StoreMaxN, cfg.JobTimeout = 2, storeMaxN, time.Minute
	cfg.Logger = slog.New(slog.DiscardHandler)
	j, err := openJobs(t.Context(), st, true, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st, j
}

// boardsStoring asks the API for the boards the store has a row for and
// returns each one's state and storesSolutions.
func boardsStoring(t *testing.T, api *apitest.Bundle) map[int]string {
	t.Helper()
	var data struct {
		Boards []struct {
			N               int
			State           string
			StoresSolutions bool
		}
	}
	api.Query(t, `{ boards { n state storesSolutions } }`, nil, &data)
	out := map[int]string{}
	for _, b := range data.Boards {
		if b.State != "UNKNOWN" {
			out[b.N] = fmt.Sprintf("%s %t", b.State, b.StoresSolutions)
		}
	}
	return out
}

// TestPendingBoardStoresSolutions: while boards wait for a worker, the API
// says whether each will keep its solutions as its job was asked (the
// storage limit, or storeSolutions), or, for a pending row without a job,
// as the storage limit says; the store's row, without a plan, says false.
// Once a worker has computed them, they are as the API said.
func TestPendingBoardStoresSolutions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const limit = 10
	st, j := openEngine(t, limit)
	no, yes := false, true
	for _, ask := range []struct {
		n      int
		stores *bool
	}{{9, nil}, {8, &no}, {11, nil}, {8, &yes}} { // N=8 asked again: the first choice stands
		if b, err := j.Precompute(ctx, store.BoardRequest{N: ask.n}, ask.stores); err != nil || b.State != store.Pending {
			t.Fatalf("Precompute(%d): %+v, %v", ask.n, b, err)
		}
	}
	if _, _, err := st.RequestBoard(ctx, store.BoardRequest{N: 7}); err != nil { // pending, and no job
		t.Fatal(err)
	}
	if b, err := st.Board(ctx, 9); err != nil || b.StoresSolutions {
		t.Fatalf("the store's row of pending N=9: %+v, %v; want StoresSolutions false (no plan yet)", b, err)
	}
	api := apitest.Setup(t, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
		c.Graph.Plans = boardPlans{jobs: j, storeMaxN: limit}
	})
	want := map[int]string{7: "PENDING true", 8: "PENDING false", 9: "PENDING true", 11: "PENDING false"}
	if got := boardsStoring(t, api); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("boards while pending: %v; want %v", got, want)
	}
	var one struct {
		Board struct{ StoresSolutions bool }
	}
	if api.Query(t, `{ board(n: 9) { storesSolutions } }`, nil, &one); !one.Board.StoresSolutions {
		t.Error("board(n: 9) while pending: storesSolutions false; its job keeps the solutions")
	}

	if _, err := j.Precompute(ctx, store.BoardRequest{N: 7}, nil); err != nil { // the worker plans boards with a job
		t.Fatal(err)
	}
	if err := j.Start(context.WithoutCancel(ctx)); err != nil {
		t.Fatal(err)
	}
	defer j.Stop(context.Background())
	done := boardtest.WaitFinished(t, st, time.Minute, 7, 8, 9, 11)
	for n, said := range want {
		if b := done[n]; b.State != store.Done || strings.TrimPrefix(said, "PENDING ") != strconv.FormatBool(b.StoresSolutions) {
			t.Errorf("N=%d: %s, stores solutions %t; the API said %q while it was pending", n, b.State, b.StoresSolutions, said)
		}
	}
}

// TestPrecomputeRange: the range of the precompute mutation's n, as the
// schema documents it, is the range the resolver and the engine take.
func TestPrecomputeRange(t *testing.T) {
	t.Parallel()
	doc := graph.NewExecutableSchema(graph.Config{}).Schema().Mutation.Fields.ForName("precompute").Arguments.ForName("n").Description
	m := regexp.MustCompile(`\b1 to (\d+)\b`).FindStringSubmatch(doc)
	if m == nil || m[1] != strconv.Itoa(precompute.MaxN) || graph.PrecomputeMaxN != precompute.MaxN {
		t.Fatalf("precompute(n) is documented as %q, graph takes 1 to %d, the engine 1 to %d", doc, graph.PrecomputeMaxN, precompute.MaxN)
	}
	_, j := openEngine(t, 10) // never started: N=27 is asked for, not computed
	const token = "range-token"
	api := apitest.Setup(t, func(c *server.Config) { c.Graph.Precompute, c.Graph.AdminToken = j, token })
	for _, n := range []int{0, 1, precompute.MaxN, precompute.MaxN + 1, 32} {
		r := api.Post(t, apitest.Request{Query: fmt.Sprintf(`mutation { precompute(n: %d) { n state } }`, n)}, "Authorization", "Bearer "+token)
		inRange := n >= 1 && n <= precompute.MaxN
		switch {
		case inRange && (r.Code() != "" || !strings.Contains(string(r.Data), `"state":"PENDING"`)):
			t.Errorf("precompute(n: %d): %s; want it asked for", n, r.Raw)
		case !inRange && (r.Code() != "BAD_USER_INPUT" || !strings.Contains(r.Message(), "from 1 to "+strconv.Itoa(precompute.MaxN))):
			t.Errorf("precompute(n: %d): %s; want BAD_USER_INPUT saying 1 to %d", n, r.Raw, precompute.MaxN)
		}
	}
	// What the engine refuses (EINVALID) reaches the client as it says it.
	r := api.Post(t, apitest.Request{Query: `mutation { precompute(n: 12, storeSolutions: true) { n } }`}, "Authorization", "Bearer "+token)
	if r.Code() != "BAD_USER_INPUT" || !strings.Contains(r.Message(), "storage limit") {
		t.Errorf("precompute(n: 12, storeSolutions: true) above a storage limit of 10: %s; want BAD_USER_INPUT about the storage limit", r.Raw)
	}
}
