package solver_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// collect gathers a sequence, cloning the reused placements.
func collect(seq func(func(solver.Placement) bool)) []solver.Placement {
	var out []solver.Placement
	for p := range seq {
		out = append(out, p.Clone())
	}
	return out
}

func TestAllIsValidOrderedAndComplete(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for n := 1; n <= 11; n++ {
		all := collect(solver.All(n))
		if uint64(len(all)) != ref[n].Total {
			t.Errorf("N=%d: %d solutions, want %d", n, len(all), ref[n].Total)
		}
		for i, p := range all {
			if err := solver.ValidateN(n, p); err != nil {
				t.Fatalf("N=%d: %v is not a solution: %v", n, p, err)
			}
			if i > 0 && all[i-1].Compare(p) >= 0 {
				t.Fatalf("N=%d: %v does not follow %v", n, p, all[i-1])
			}
		}
	}
}

func TestUniqueIsTheCanonicalSubsequence(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for n := 1; n <= 10; n++ {
		all := collect(solver.All(n))
		var want []solver.Placement
		var members int
		for _, p := range all {
			c := solver.Canonical(p)
			if !slices.Equal(solver.Canonical(c), c) {
				t.Fatalf("N=%d: Canonical is not idempotent on %v", n, p)
			}
			for _, img := range solver.Images(p) {
				if err := solver.ValidateN(n, img.Placement); err != nil {
					t.Fatalf("N=%d: %s image of %v is not a solution: %v", n, img.Symmetry, p, err)
				}
				if !slices.Equal(solver.Canonical(img.Placement), c) {
					t.Fatalf("N=%d: Canonical differs on the orbit of %v", n, p)
				}
			}
			if solver.IsCanonical(p) != slices.Equal(c, p) {
				t.Fatalf("N=%d: IsCanonical(%v) disagrees with Canonical", n, p)
			}
			if slices.Equal(c, p) {
				want = append(want, p)
				members += solver.OrbitSize(p)
			}
		}
		got := collect(solver.AllUnique(n))
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("N=%d: AllUnique gave %d placements, the canonical filter %d", n, len(got), len(want))
		}
		if uint64(len(got)) != ref[n].Unique {
			t.Errorf("N=%d: %d unique, want %d", n, len(got), ref[n].Unique)
		}
		if uint64(members) != ref[n].Total {
			t.Errorf("N=%d: orbit sizes sum to %d, want %d", n, members, ref[n].Total)
		}
	}
}

// randomBound returns a cursor-like placement: empty, a solution, a
// non-solution, a prefix, or columns off the board.
func randomBound(r *rand.Rand, n int, all []solver.Placement) solver.Placement {
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		if len(all) > 0 {
			return all[r.IntN(len(all))].Clone()
		}
	case 2:
		p := make(solver.Placement, r.IntN(n)+1)
		for i := range p {
			p[i] = r.IntN(n)
		}
		return p
	case 3:
		p := make(solver.Placement, n)
		for i := range p {
			p[i] = r.IntN(n+2) - 1
		}
		return p
	}
	p := make(solver.Placement, n)
	for i := range p {
		p[i] = r.IntN(n)
	}
	return p
}

func TestAfterAndBeforeEqualSlicesOfTheEnumeration(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	for n := 1; n <= 10; n++ {
		for _, unique := range []bool{false, true} {
			all := collect(solver.All(n))
			if unique {
				all = collect(solver.AllUnique(n))
			}
			page := func(p solver.Placement, k int, backward bool) ([]solver.Placement, error) {
				return solver.Page(context.Background(), solver.PageQuery{N: n, Cursor: p, Limit: k, Backward: backward, Unique: unique})
			}
			for range 60 {
				p := randomBound(r, n, all)
				k := r.IntN(12)
				// Everything strictly after p, and strictly before it.
				i := 0
				for i < len(all) && (len(p) > 0 && all[i].Compare(p) <= 0) {
					i++
				}
				j := len(all)
				if len(p) > 0 {
					j = 0
					for j < len(all) && all[j].Compare(p) < 0 {
						j++
					}
				}
				wantAfter := all[i:min(i+k, len(all))]
				wantBefore := all[max(j-k, 0):j]
				gotAfter, err := page(p, k, false)
				if err != nil {
					t.Fatal(err)
				}
				gotBefore, err := page(p, k, true)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(gotAfter, wantAfter, slices.Equal) {
					t.Fatalf("N=%d unique=%v: the page of %d after %v is %v, want %v", n, unique, k, p, gotAfter, wantAfter)
				}
				if !slices.EqualFunc(gotBefore, wantBefore, slices.Equal) {
					t.Fatalf("N=%d unique=%v: the page of %d before %v is %v, want %v", n, unique, k, p, gotBefore, wantBefore)
				}
			}
		}
	}
}

func TestPagingWalksTheWholeEnumeration(t *testing.T) {
	t.Parallel()
	for n := 4; n <= 9; n++ {
		all := collect(solver.All(n))
		var walked []solver.Placement
		var cursor solver.Placement
		for {
			page, err := solver.After(n, cursor, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			walked = append(walked, page...)
			cursor = page[len(page)-1]
		}
		if !slices.EqualFunc(walked, all, slices.Equal) {
			t.Fatalf("N=%d: forward pages differ from All", n)
		}
		var back []solver.Placement
		cursor = nil
		for {
			page, err := solver.Before(n, cursor, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			back = append(page, back...)
			cursor = page[0]
		}
		if !slices.EqualFunc(back, all, slices.Equal) {
			t.Fatalf("N=%d: backward pages differ from All", n)
		}
	}
}

func TestPagesRejectBadN(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, -1, solver.MaxSearchN + 1} {
		if _, err := solver.After(n, nil, 3); err == nil {
			t.Errorf("After(N=%d) gave no error", n)
		}
		if _, err := solver.Chunks(n, 2); err == nil {
			t.Errorf("Chunks(N=%d) gave no error", n)
		}
		if _, err := solver.Tasks(n); err == nil {
			t.Errorf("Tasks(N=%d) gave no error", n)
		}
	}
}

func TestPageStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The last unique page of N=30 is far beyond any budget: only the
	// cancelled context lets this return.
	_, err := solver.Page(ctx, solver.PageQuery{N: 30, Cursor: solver.Placement{14}, Limit: 10, Unique: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestPageStopsShortOfTheOtherBound(t *testing.T) {
	t.Parallel()
	all := collect(solver.All(8))
	for _, backward := range []bool{false, true} {
		after, before := all[10], all[20]
		q := solver.PageQuery{N: 8, Cursor: after, Stop: before, Limit: 50, Backward: backward}
		if backward {
			q.Cursor, q.Stop = before, after
		}
		got, err := solver.Page(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, all[11:20], slices.Equal) {
			t.Errorf("backward=%v: got %v, want the 9 solutions strictly between", backward, got)
		}
	}
}
