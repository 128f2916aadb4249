package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// filtersPerBoard is how many random filters each board of N=1..10 is
// walked under.
const filtersPerBoard = 12

// testFilteredWalks stores N=1..10 and, for random filters, walks every
// board whole and from random cursors (solutions or not), all and unique:
// each walk must equal the solver's enumeration filtered by brute force.
func testFilteredWalks[TTx any](t *testing.T, b *bundle[TTx]) {
	LoadRange(b.ctx, t, b.store, 1, maxRoundTripN)
	rng := rand.New(rand.NewPCG(15, 15))
	for n := 1; n <= maxRoundTripN; n++ {
		all := enumerate(n, false)
		for range filtersPerBoard {
			f := randomFilter(rng, n, all)
			for _, unique := range []bool{false, true} {
				want := filtered(n, f, unique)
				name := fmt.Sprintf("N=%d unique=%t filter %q", n, unique, f)
				if got := walkAll(t, b, store.WalkRequest{N: n, Unique: unique, Filter: f}); !samePlacements(got, want) {
					t.Errorf("%s: walk: got %v, want %v", name, got, want)
				}
				for range 4 {
					cursor := randomCursor(rng, n, all)
					if got, w := walkAll(t, b, store.WalkRequest{N: n, Unique: unique, After: cursor, Filter: f}), pageOf(want, store.PageRequest{N: n, Cursor: cursor, Limit: len(want)}); !samePlacements(got, w) {
						t.Errorf("%s: walk after %v: got %v, want %v", name, cursor, got, w)
					}
				}
			}
		}
		for _, unique := range []bool{false, true} {
			want := enumerate(n, unique)
			if got := walkAll(t, b, store.WalkRequest{N: n, Unique: unique}); !samePlacements(got, want) {
				t.Errorf("N=%d unique=%t: walk without a filter: %d solutions, want %d", n, unique, len(got), len(want))
			}
		}
	}
}

// randomFilter draws a filter: queens mostly taken from a random solution
// (often its first rows, which narrow the store's range scan), sometimes
// anywhere (then it may select nothing), and a few empty squares.
func randomFilter(rng *rand.Rand, n int, all []solver.Placement) solver.Filter {
	var f solver.Filter
	var s solver.Placement
	if len(all) > 0 {
		s = all[rng.IntN(len(all))]
	}
	switch k := rng.IntN(3); {
	case s != nil && rng.IntN(3) == 0: // the first k+1 rows of s
		for r := range min(k+1, n) {
			f.Queens = append(f.Queens, solver.Square{Row: r, Col: s[r]})
		}
	case s != nil && rng.IntN(2) == 0:
		for range k {
			r := rng.IntN(n)
			f.Queens = append(f.Queens, solver.Square{Row: r, Col: s[r]})
		}
	default:
		for range k {
			f.Queens = append(f.Queens, solver.Square{Row: rng.IntN(n), Col: rng.IntN(n)})
		}
	}
	for range min(rng.IntN(4), 2*n) { // a filter names at most 2N squares a list
		f.Empty = append(f.Empty, solver.Square{Row: rng.IntN(n), Col: rng.IntN(n)})
	}
	return f
}

// filtered is the solver's ordered enumeration kept by brute force: the
// solutions that meet f, or the canonical solutions with an image (by the
// solver's own symmetries) that meets f.
func filtered(n int, f solver.Filter, unique bool) []solver.Placement {
	var out []solver.Placement
	for _, p := range enumerate(n, unique) {
		keep := f.Matches(p)
		if unique {
			keep = slices.ContainsFunc(solver.Images(p), func(im solver.Image) bool { return f.Matches(im.Placement) })
		}
		if keep {
			out = append(out, p)
		}
	}
	return out
}

// randomCursor is a random solution or a random placement of N.
func randomCursor(rng *rand.Rand, n int, all []solver.Placement) solver.Placement {
	if len(all) > 0 && rng.IntN(2) == 0 {
		return all[rng.IntN(len(all))]
	}
	p := make(solver.Placement, n)
	for r := range p {
		p[r] = rng.IntN(n)
	}
	return p
}

// pageOf is the page of a sorted list the request asks for.
func pageOf(list []solver.Placement, req store.PageRequest) []solver.Placement {
	if req.Direction == store.Backward {
		end := len(list)
		if len(req.Cursor) > 0 {
			end, _ = slices.BinarySearchFunc(list, req.Cursor, solver.Placement.Compare)
		}
		return list[max(0, end-req.Limit):end]
	}
	start := 0
	if len(req.Cursor) > 0 {
		i, found := slices.BinarySearchFunc(list, req.Cursor, solver.Placement.Compare)
		start = i
		if found {
			start++
		}
	}
	return list[start:min(len(list), start+req.Limit)]
}

// walkAll collects a Walk.
func walkAll[TTx any](t *testing.T, b *bundle[TTx], req store.WalkRequest) []solver.Placement {
	t.Helper()
	var out []solver.Placement
	err := b.store.Walk(b.ctx, req, func(key []byte) error {
		out = append(out, solver.FromBytes(key))
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%+v): %v", req, err)
	}
	return out
}

// testFilterBadInput checks that filters off the board or too long are
// EINVALID, and that walking a board that is not stored is ENOTFOUND.
func testFilterBadInput[TTx any](t *testing.T, b *bundle[TTx]) {
	Load(b.ctx, t, b.store, 6, 1)
	long := solver.Filter{}
	for range solver.MaxFilterSquares + 1 {
		long.Empty = append(long.Empty, solver.Square{Row: 1, Col: 1})
	}
	for name, f := range map[string]solver.Filter{
		"queen off the board":   {Queens: []solver.Square{{Row: 6, Col: 0}}},
		"empty square negative": {Empty: []solver.Square{{Row: 0, Col: -1}}},
		"too many squares":      long,
	} {
		err := b.store.Walk(b.ctx, store.WalkRequest{N: 6, Filter: f}, func([]byte) error { return nil })
		wantCode(t, err, nqueens.EINVALID, "Walk: "+name)
	}
	err := b.store.Walk(b.ctx, store.WalkRequest{N: 7}, func([]byte) error { return nil })
	wantCode(t, err, nqueens.ENOTFOUND, "Walk of a board not stored")
	err = b.store.Walk(b.ctx, store.WalkRequest{N: 6, After: solver.Placement{1}}, func([]byte) error { return nil })
	wantCode(t, err, nqueens.EINVALID, "Walk after a short cursor")
}
