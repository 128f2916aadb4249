// Package boardtest checks boards the precompute filled, for tests that
// run it in-process (precompute) or as real processes (cmd/nqueens):
// counts against the published table (internal/oeis), stored solutions
// against the solver.
package boardtest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// CheckCounts checks that board b is done with the published counts, every
// chunk written.
func CheckCounts(t testing.TB, b store.Board) {
	t.Helper()
	ref := oeis.MustLoad(t)[b.N]
	want := solver.Counts{Total: ref.Total, Unique: ref.Unique, Orbit1: ref.OrbitOfSingle, Orbit2: ref.Orbit2, Orbit4: ref.Orbit4, Orbit8: ref.Orbit8}
	if b.State != store.Done || b.Counts == nil || *b.Counts != want || b.ChunksDone != b.ChunksTotal || b.SolutionsDone != want.Total {
		t.Errorf("N=%d: %+v; want done with %+v", b.N, b, want)
	}
}

// CheckStored checks that the stored solutions of N are the solver's,
// each once, in order.
func CheckStored(t testing.TB, s store.Reader, n int) {
	t.Helper()
	var got []solver.Placement
	req := store.PageRequest{N: n, Limit: store.MaxPageLimit}
	for {
		page, err := s.Page(context.Background(), req)
		if err != nil {
			t.Fatalf("Page(%+v): %v", req, err)
		}
		for _, sol := range page {
			got = append(got, sol.Placement)
		}
		if len(page) < req.Limit {
			break
		}
		req.Cursor = page[len(page)-1].Placement
	}
	var want []solver.Placement
	for p := range solver.All(n) {
		want = append(want, p.Clone())
	}
	if !slices.EqualFunc(got, want, func(a, b solver.Placement) bool { return a.Compare(b) == 0 }) {
		t.Errorf("N=%d: %d solutions stored, want the solver's %d, the same", n, len(got), len(want))
	}
}

// CheckSquareCounts checks that the statistics of done board N are a
// tally of the solver's enumeration: every square, of all solutions and of
// the canonical ones (by the definition, the smallest of their images).
func CheckSquareCounts(t testing.TB, s store.Reader, n int) {
	t.Helper()
	got, err := s.SquareCounts(context.Background(), n)
	if err != nil {
		t.Errorf("SquareCounts(%d): %v", n, err)
		return
	}
	want := solver.NewSquareCounts(n)
	for p := range solver.All(n) {
		canonical := solver.Canonical(p).Compare(p) == 0
		for r, c := range p {
			want.All[r*n+c]++
			if canonical {
				want.Unique[r*n+c]++
			}
		}
	}
	if got.N != n || !slices.Equal(got.All, want.All) || !slices.Equal(got.Unique, want.Unique) {
		t.Errorf("N=%d: square counts %+v, the solver's %+v", n, got, want)
	}
}

// WaitFinished waits until the boards ns are done or failed, and returns
// them; it fails the test after timeout.
func WaitFinished(t testing.TB, s store.Reader, timeout time.Duration, ns ...int) map[int]store.Board {
	t.Helper()
	var out map[int]store.Board
	eventually.True(t, timeout, func() string {
		out = map[int]store.Board{}
		for _, n := range ns {
			b, err := s.Board(context.Background(), n)
			if err != nil && nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
				t.Fatal(err)
			}
			if b.State == store.Done || b.State == store.Failed {
				out[n] = b
			}
		}
		if len(out) < len(ns) {
			return fmt.Sprintf("boards %v not finished: finished %v", ns, out)
		}
		return ""
	})
	return out
}

// Watch reads board n every eventually.Poll, handing each row to until,
// until it returns true, and returns that row; it fails the test after
// timeout.
func Watch(t testing.TB, s store.Reader, n int, timeout time.Duration, until func(store.Board) bool) store.Board {
	t.Helper()
	var b store.Board
	eventually.True(t, timeout, func() string {
		var err error
		if b, err = s.Board(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		if !until(b) {
			return fmt.Sprintf("N=%d is %+v", n, b)
		}
		return ""
	})
	return b
}
