package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// randomFilter returns a filter of 0 to 3 pinned queens and 0 to 4 empty
// squares anywhere on the board: they may attack each other, repeat, or
// pin and block one square, which filters must take too.
func randomFilter(r *rand.Rand, n int) solver.Filter {
	var f solver.Filter
	for range r.IntN(4) {
		f.Queens = append(f.Queens, solver.Square{Row: r.IntN(n), Col: r.IntN(n)})
	}
	for range r.IntN(5) {
		f.Empty = append(f.Empty, solver.Square{Row: r.IntN(n), Col: r.IntN(n)})
	}
	return f
}

// pinnedSolutionFilter pins queens of a solution, so that the filter
// matches something (random pins mostly match nothing on small boards).
func pinnedSolutionFilter(r *rand.Rand, n int, all []solver.Placement) solver.Filter {
	f := randomFilter(r, n)
	if len(all) == 0 {
		return f
	}
	p := all[r.IntN(len(all))]
	f.Queens = f.Queens[:0]
	for range r.IntN(3) + 1 {
		row := r.IntN(n)
		f.Queens = append(f.Queens, solver.Square{Row: row, Col: p[row]})
	}
	return f
}

// filteredListing is the brute-force answer: the solutions f matches, or
// (unique) the canonical solutions with an image that f matches.
func filteredListing(n int, f solver.Filter, unique bool) []solver.Placement {
	var out []solver.Placement
	if !unique {
		for p := range solver.All(n) {
			if f.Matches(p) {
				out = append(out, p.Clone())
			}
		}
		return out
	}
	for c := range solver.AllUnique(n) {
		if slices.ContainsFunc(solver.Images(c), func(img solver.Image) bool { return f.Matches(img.Placement) }) {
			out = append(out, c.Clone())
		}
	}
	return out
}

// window is the brute-force page: up to k items strictly after `after`
// (forward) or strictly before `before` (backward), short of the other.
func window(list []solver.Placement, after, before solver.Placement, k int, backward bool) []solver.Placement {
	var in []solver.Placement
	for _, p := range list {
		if (after == nil || p.Compare(after) > 0) && (before == nil || p.Compare(before) < 0) {
			in = append(in, p)
		}
	}
	if backward {
		return in[max(len(in)-k, 0):]
	}
	return in[:min(k, len(in))]
}

func TestFilteredPagesEqualTheFilteredEnumeration(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 15))
	for n := 1; n <= 10; n++ {
		all := collect(solver.All(n))
		for _, unique := range []bool{false, true} {
			for range 12 {
				f := randomFilter(r, n)
				if r.IntN(2) == 0 {
					f = pinnedSolutionFilter(r, n, all)
				}
				want := filteredListing(n, f, unique)
				if got := collect(solver.Matching(n, f, unique)); !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("N=%d unique=%v filter %q: Matching gave %v, want %v", n, unique, f, got, want)
				}
				for range 25 {
					// Cursors: anything randomBound makes, solutions the
					// filter does not match among them.
					cursor, stop := randomBound(r, n, all), solver.Placement(nil)
					if r.IntN(3) == 0 {
						stop = randomBound(r, n, all)
					}
					k := r.IntN(8)
					for _, backward := range []bool{false, true} {
						after, before := cursor, stop
						if backward {
							after, before = stop, cursor
						}
						if len(after) == 0 {
							after = nil
						}
						if len(before) == 0 {
							before = nil
						}
						wantPage := window(want, after, before, k, backward)
						got, err := solver.Page(context.Background(), solver.PageQuery{N: n, Cursor: cursor, Stop: stop, Limit: k, Backward: backward, Unique: unique, Filter: f})
						if err != nil {
							t.Fatal(err)
						}
						if !slices.EqualFunc(got, wantPage, slices.Equal) {
							t.Fatalf("N=%d unique=%v filter %q backward=%v cursor %v stop %v limit %d: got %v, want %v", n, unique, f, backward, cursor, stop, k, got, wantPage)
						}
					}
				}
			}
		}
	}
}

// TestFilteredPagingWalksTheListing pages through filtered listings of
// N=8 both ways and gets the whole listing back.
func TestFilteredPagingWalksTheListing(t *testing.T) {
	t.Parallel()
	const n = 8
	for _, f := range []solver.Filter{
		{Queens: []solver.Square{{Row: 0, Col: 3}}},
		{Empty: []solver.Square{{Row: 0, Col: 0}, {Row: 1, Col: 4}, {Row: 7, Col: 7}}},
		{Queens: []solver.Square{{Row: 5, Col: 2}}, Empty: []solver.Square{{Row: 2, Col: 2}}},
	} {
		for _, unique := range []bool{false, true} {
			want := filteredListing(n, f, unique)
			for _, backward := range []bool{false, true} {
				var walked []solver.Placement
				var cursor solver.Placement
				for {
					page, err := solver.Page(context.Background(), solver.PageQuery{N: n, Cursor: cursor, Limit: 3, Backward: backward, Unique: unique, Filter: f})
					if err != nil {
						t.Fatal(err)
					}
					if len(page) == 0 {
						break
					}
					if backward {
						walked, cursor = append(slices.Clone(page), walked...), page[0]
					} else {
						walked, cursor = append(walked, page...), page[len(page)-1]
					}
				}
				if len(want) == 0 || !slices.EqualFunc(walked, want, slices.Equal) {
					t.Errorf("filter %q unique=%v backward=%v: walked %d items, want the %d of the listing", f, unique, backward, len(walked), len(want))
				}
			}
		}
	}
}

func TestPageRefusesAFilterOffTheBoard(t *testing.T) {
	t.Parallel()
	_, err := solver.Page(context.Background(), solver.PageQuery{N: 8, Limit: 5, Filter: solver.Filter{Queens: []solver.Square{{Row: 8, Col: 0}}}})
	if err == nil {
		t.Fatal("a queen on row 8 of N=8 was taken")
	}
}

// bruteCounts counts the solutions f matches and the classes with a
// member f matches, from the classes of AllUnique and their Images.
func bruteCounts(n int, f solver.Filter) solver.Counts {
	var c solver.Counts
	for p := range solver.AllUnique(n) {
		seen := map[string]bool{}
		matched := 0
		for _, img := range solver.Images(p) {
			key := img.Placement.String()
			if !seen[key] {
				seen[key] = true
				if f.Matches(img.Placement) {
					matched++
				}
			}
		}
		if matched > 0 {
			c.Total += uint64(matched)
			c.Unique++
			switch len(seen) {
			case 1:
				c.Orbit1++
			case 2:
				c.Orbit2++
			case 4:
				c.Orbit4++
			default:
				c.Orbit8++
			}
		}
	}
	return c
}

func TestCountFilteredEqualsBruteForce(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 16))
	for n := 1; n <= 10; n++ {
		all := collect(solver.All(n))
		filters := []solver.Filter{{}}
		for range 30 {
			if r.IntN(2) == 0 {
				filters = append(filters, randomFilter(r, n))
			} else {
				filters = append(filters, pinnedSolutionFilter(r, n, all))
			}
		}
		for _, f := range filters {
			want := bruteCounts(n, f)
			if got := uint64(len(filteredListing(n, f, false))); got != want.Total {
				t.Fatalf("N=%d filter %q: brute forces disagree: %d solutions match, classes hold %d", n, f, got, want.Total)
			}
			if got := uint64(len(collect(solver.Matching(n, f, true)))); got != want.Unique {
				t.Fatalf("N=%d filter %q: the unique listing has %d items, %d classes match", n, f, got, want.Unique)
			}
			got, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{Workers: 1 + r.IntN(3)})
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("N=%d filter %q: CountFiltered %+v, want %+v", n, f, got, want)
			}
			// The chunks of any depth sum to the whole.
			depth := r.IntN(n + 1)
			chunks, err := solver.Chunks(n, depth)
			if err != nil {
				t.Fatal(err)
			}
			var sum solver.Counts
			for _, c := range chunks {
				sum.Add(c.CountFiltered(f))
			}
			if sum != want {
				t.Fatalf("N=%d filter %q: the chunks of depth %d sum to %+v, want %+v", n, f, depth, sum, want)
			}
			// So do the chunks of the plan, counted with its image of f.
			plan, err := solver.PlanFilteredCount(n, f)
			if err != nil {
				t.Fatal(err)
			}
			sum = solver.Counts{}
			for _, c := range plan.Chunks {
				sum.Add(c.CountFiltered(plan.Filter))
			}
			if sum != want {
				t.Fatalf("N=%d filter %q: the plan's chunks with %q sum to %+v, want %+v", n, f, plan.Filter, sum, want)
			}
		}
	}
}

func TestCountFilteredStops(t *testing.T) {
	t.Parallel()
	f := solver.Filter{Queens: []solver.Square{{Row: 3, Col: 5}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := solver.CountFiltered(ctx, 20, f, solver.CountOptions{}); err != context.Canceled {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	stop := fmt.Errorf("budget spent")
	if _, err := solver.CountFiltered(context.Background(), 20, f, solver.CountOptions{Checkpoint: func() error { return stop }}); err != stop {
		t.Errorf("checkpoint error: got %v, want it back", err)
	}
	if _, err := solver.CountFiltered(context.Background(), 8, solver.Filter{Empty: []solver.Square{{Row: 0, Col: 9}}}, solver.CountOptions{}); err == nil {
		t.Error("an empty square off the board was taken")
	}
}
