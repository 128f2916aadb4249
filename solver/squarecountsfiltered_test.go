package solver_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// bruteFilteredSquareCounts tallies the brute-force filtered listings
// (solver.All and Filter.Matches): all matching solutions, and the
// canonical members of the classes with a matching member.
func bruteFilteredSquareCounts(n int, f solver.Filter) solver.SquareCounts {
	s := solver.NewSquareCounts(n)
	for _, unique := range []bool{false, true} {
		table := s.All
		if unique {
			table = s.Unique
		}
		for _, p := range filteredListing(n, f, unique) {
			for r, c := range p {
				table[r*n+c]++
			}
		}
	}
	return s
}

// TestSquareCountsFiltered compares the filtered tallies with brute force
// for random filters (and the zero filter), and checks that rows and
// columns sum to the filtered counts, which are CountFiltered's.
func TestSquareCountsFiltered(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 6))
	for n := 1; n <= 9; n++ {
		var all []solver.Placement
		for p := range solver.All(n) {
			all = append(all, p.Clone())
		}
		filters := []solver.Filter{{}}
		for range 12 {
			filters = append(filters, randomFilter(r, n), pinnedSolutionFilter(r, n, all))
		}
		for _, f := range filters {
			t.Run(fmt.Sprintf("N=%d/%v", n, f), func(t *testing.T) {
				got, counts, err := solver.SquareCountsFiltered(context.Background(), n, f, solver.CountOptions{})
				if err != nil {
					t.Fatal(err)
				}
				want := bruteFilteredSquareCounts(n, f)
				if !slices.Equal(got.All, want.All) {
					t.Errorf("all: got %v, want %v", got.All, want.All)
				}
				if !slices.Equal(got.Unique, want.Unique) {
					t.Errorf("unique: got %v, want %v", got.Unique, want.Unique)
				}
				wantCounts, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if counts != wantCounts {
					t.Errorf("counts %+v, want %+v", counts, wantCounts)
				}
				if err := got.Check(counts); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestSquareCountsFilteredStops checks that the checkpoint bounds the
// tally: its error comes back and no table does.
func TestSquareCountsFilteredStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("budget spent")
	s, _, err := solver.SquareCountsFiltered(context.Background(), 14, solver.Filter{Empty: []solver.Square{{Row: 0, Col: 0}}},
		solver.CountOptions{Checkpoint: func() error { return stop }})
	if !errors.Is(err, stop) || s.All != nil {
		t.Fatalf("got %v, %v; want the checkpoint's error and no table", s.All != nil, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := solver.SquareCountsFiltered(ctx, 14, solver.Filter{}, solver.CountOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
}
