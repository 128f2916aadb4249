package postgres_test

import (
	"testing"

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
