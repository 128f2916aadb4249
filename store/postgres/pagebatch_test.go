package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// A query that fails in a batch aborts the rest of the batch in Postgres
// (one implicit transaction); the requests after it are then answered on
// their own, and only the failing one gets an error.
func TestPageBatchWithAFailingQuery(t *testing.T) {
	t.Parallel()
	s := pgtest.OpenSchema(t)
	ctx := t.Context()
	const n = 8
	storetest.LoadRange(ctx, t, s, n, n)
	good := store.PageRequest{N: n, Direction: store.Forward, Limit: 5}
	bad := store.PageRequest{N: n, Direction: store.Forward, Limit: -1} // LIMIT must not be negative
	back := store.PageRequest{N: n, Unique: true, Direction: store.Backward, Limit: 3}
	pages, errs := s.SendPageBatch(ctx, []store.PageRequest{good, bad, back, good})
	if errs[1] == nil {
		t.Fatalf("a negative LIMIT was answered: %v", pages[1])
	}
	for _, i := range []int{0, 2, 3} {
		req := []store.PageRequest{good, bad, back, good}[i]
		if errs[i] != nil {
			t.Fatalf("request %d (%+v) failed with the batch: %v", i, req, errs[i])
		}
		want, err := solver.Page(ctx, solver.PageQuery{N: n, Limit: req.Limit, Backward: req.Direction == store.Backward, Unique: req.Unique})
		if err != nil {
			t.Fatal(err)
		}
		if len(pages[i]) != len(want) {
			t.Fatalf("request %d: %d solutions, want %d", i, len(pages[i]), len(want))
		}
		for j, sol := range pages[i] {
			if sol.Placement.Compare(want[j]) != 0 || sol.N != n {
				t.Fatalf("request %d: solution %d is %v, want %v", i, j, sol.Placement, want[j])
			}
		}
	}
}

// TestPageBatchFloodDoesNotStarve: 256 callers asking for pages back to
// back (one client's connections, or many clients') share the batches
// with a lone caller, who is served in the order it came: its pages are
// right and each comes within a few batches' time, never behind the flood
// for good; callers of the flood that give up leave the batcher serving.
func TestPageBatchFloodDoesNotStarve(t *testing.T) {
	t.Parallel()
	s := pgtest.OpenSchema(t)
	ctx := t.Context()
	const n, flooders = 10, 256
	storetest.LoadRange(ctx, t, s, n, n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range flooders {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				fctx, cancel := context.WithCancel(ctx)
				if i%4 == 0 { // a quarter give up at once
					cancel()
				}
				_, err := s.Page(fctx, store.PageRequest{N: n, Direction: store.Forward, Limit: 50})
				cancel()
				if err != nil && i%4 != 0 {
					t.Errorf("a flooder's page: %v", err)
					return
				}
			}
		})
	}
	want, err := solver.Page(ctx, solver.PageQuery{N: n, Limit: 7, Unique: true})
	if err != nil {
		t.Fatal(err)
	}
	var slowest time.Duration
	for range 50 {
		start := time.Now()
		page, err := s.Page(ctx, store.PageRequest{N: n, Unique: true, Direction: store.Forward, Limit: 7})
		took := time.Since(start)
		slowest = max(slowest, took)
		if err != nil || len(page) != len(want) || page[0].Placement.Compare(want[0]) != 0 {
			t.Fatalf("the lone caller's page during the flood: %v, %v", page, err)
		}
	}
	close(stop)
	wg.Wait()
	// Generous for a loaded 2-core machine: a page behind at most a few
	// batches of 32 takes milliseconds; starved, it would wait for ever.
	if slowest > 5*time.Second {
		t.Errorf("the lone caller's slowest page during the flood took %v", slowest)
	}
	t.Logf("the lone caller's slowest page of 50 during a flood of %d callers: %v", flooders, slowest)
}
