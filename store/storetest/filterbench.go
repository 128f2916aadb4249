package storetest

import (
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// BenchFilteredPages times filtered pages of 20 (Page with limit 21) and
// filtered counts of board n, which s holds done: the figures of
// docs/PERFORMANCE.md ("Filtered pages from the store"). The filter pins
// the queens of the constructed solution (solver.Solve) in rows n/3 and
// 2n/3, as the solver's benchmark of filtered pages does, so that the two
// compare; "rare" pins four (rows n/5 … 4n/5), which few solutions meet.
// Every page is checked to hold what the solver's enumeration, filtered,
// holds there.
func BenchFilteredPages(b *testing.B, s store.Store, n int) {
	built, err := solver.Solve(n)
	if err != nil {
		b.Fatal(err)
	}
	pin := func(rows ...int) solver.Filter {
		var f solver.Filter
		for _, r := range rows {
			f.Queens = append(f.Queens, solver.Square{Row: r, Col: built[r]})
		}
		return f
	}
	two, rare := pin(n/3, 2*n/3), pin(n/5, 2*n/5, 3*n/5, 4*n/5)
	// The enumerations are long for N=16: each one once.
	lists := map[string][]solver.Placement{}
	matching := func(f solver.Filter, unique bool) []solver.Placement {
		key := fmt.Sprint(f, unique)
		if _, ok := lists[key]; !ok {
			lists[key] = filtered(n, f, unique)
		}
		return lists[key]
	}
	for _, c := range []struct {
		name   string
		filter solver.Filter
		unique bool
		// where is the cursor: "" the start (or end, backward),
		// "middle" the constructed solution, "end" the 21st matching
		// solution from the end.
		where    string
		backward bool
	}{
		{"start", two, false, "", false},
		{"middle", two, false, "middle", false},
		{"end", two, false, "end", false},
		{"last", two, false, "", true},
		{"unique-start", two, true, "", false},
		{"unique-middle", two, true, "middle", false},
		{"rare-start", rare, false, "", false},
		{"rare-middle", rare, false, "middle", false},
	} {
		want := matching(c.filter, c.unique)
		req := store.PageRequest{N: n, Unique: c.unique, Limit: 21, Filter: c.filter}
		if c.backward {
			req.Direction = store.Backward
		}
		switch c.where {
		case "middle":
			req.Cursor = built
			if c.unique {
				req.Cursor = solver.Canonical(built)
			}
		case "end":
			req.Cursor = want[max(0, len(want)-21)]
		}
		wantPage := pageOf(want, req)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				page, err := s.Page(b.Context(), req)
				if err != nil {
					b.Fatal(err)
				}
				got := make([]solver.Placement, len(page))
				for i, sol := range page {
					got[i] = sol.Placement
				}
				if !samePlacements(got, wantPage) {
					b.Fatalf("page %+v: %d solutions, want %d", req, len(got), len(wantPage))
				}
			}
			b.ReportMetric(float64(len(wantPage)), "solutions/page")
		})
	}
	for _, c := range []struct {
		name   string
		filter solver.Filter
		unique bool
	}{{"count", two, false}, {"count-unique", two, true}} {
		want := uint64(len(matching(c.filter, c.unique)))
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				k, err := s.CountSolutions(b.Context(), store.CountRequest{N: n, Unique: c.unique, Filter: c.filter})
				if err != nil || k != want {
					b.Fatalf("count %v: %d, %v; want %d", c.filter, k, err, want)
				}
			}
		})
	}
}
