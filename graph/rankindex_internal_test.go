package graph

import (
	"math/rand/v2"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// partialIndex is the rank index of N with the true counts of its first
// and last k chunks, counted by the solver, and the rest of the board (the
// published totals less those) in the middle chunk: the prefix sums at
// the ends are those of the full index, at a sliver of its cost. Of the
// last chunks, whose first queen is past the middle, none is canonical.
func partialIndex(tb testing.TB, n, k int) *rankIndex {
	tb.Helper()
	row, ok := oeis.MustLoad(tb)[n]
	if !ok {
		tb.Fatalf("no published counts of N=%d", n)
	}
	plan, err := solver.PlanFilteredCount(n, solver.Filter{})
	if err != nil {
		tb.Fatal(err)
	}
	counts := make([]solver.Counts, len(plan.Chunks))
	var ends solver.Counts
	for _, i := range append(rangeOf(0, k), rangeOf(len(counts)-k, len(counts))...) {
		counts[i] = plan.Chunks[i].CountFiltered(solver.Filter{})
		ends.Total, ends.Unique = ends.Total+counts[i].Total, ends.Unique+counts[i].Unique
	}
	counts[len(counts)/2] = solver.Counts{Total: row.Total - ends.Total, Unique: row.Unique - ends.Unique}
	return newRankIndex(n, plan.Chunks, counts)
}

func rangeOf(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// TestRankIndexN17 finds solutions of N=17 by rank through its rank index
// and the solver's walk within a chunk (indexedListing), for sampled ranks
// in its first and last three chunks (the first and the last included),
// and compares them with the solver's ordered listing: its first
// solutions from the start, its last from the end (a backward page);
// each solution's rank back from its placement agrees. Unique ranks are
// sampled in the first chunks, where the canonical solutions are.
func TestRankIndexN17(t *testing.T) {
	const n, k = 17, 3
	opts := DefaultOptions()
	opts.RankWalkMaxN = 0
	r, err := NewResolver(opts)
	if err != nil {
		t.Fatal(err)
	}
	ix := partialIndex(t, n, k)
	r.indexes.by = map[int]*rankIndex{n: ix}
	l := indexedListing{r}
	ctx := t.Context()
	check := func(rank uint64, unique bool, want solver.Placement) {
		t.Helper()
		got, err := l.SolutionAt(ctx, n, rank, unique)
		if err != nil || got.Placement.Compare(want) != 0 {
			t.Errorf("SolutionAt(%d, %d, unique %t) = %v, %v; the solver's listing has %v", n, rank, unique, got.Placement, err, want)
			return
		}
		if back, err := l.Rank(ctx, n, want, unique); err != nil || back != rank {
			t.Errorf("Rank(%v, unique %t) = %d, %v; want %d", want, unique, back, err, rank)
		}
	}
	for _, unique := range []bool{false, true} {
		sums := ix.sums(unique)
		first := sums[k] // the items of the first k chunks
		seq := solver.All(n)
		if unique {
			seq = solver.AllUnique(n)
		}
		var head []solver.Placement
		for p := range seq {
			if head = append(head, p.Clone()); uint64(len(head)) == first {
				break
			}
		}
		ranks := []uint64{1, 2, sums[1], sums[1] + 1, first}
		for range 8 {
			ranks = append(ranks, 1+rand.Uint64N(first))
		}
		for _, rank := range ranks {
			check(rank, unique, head[rank-1])
		}
	}
	total := ix.before[len(ix.chunks)]
	last := total - ix.before[len(ix.chunks)-k] // the solutions of the last k chunks
	tail, err := solver.Page(ctx, solver.PageQuery{N: n, Limit: int(last), Backward: true})
	if err != nil || uint64(len(tail)) != last {
		t.Fatalf("the last %d solutions of N=%d: %d, %v", last, n, len(tail), err)
	}
	for _, back := range []uint64{0, 1, last / 2, last - 1} {
		check(total-back, false, tail[len(tail)-1-int(back)])
	}
	if _, err := l.SolutionAt(ctx, n, total+1, false); err == nil {
		t.Errorf("SolutionAt(%d, %d), past the last, found one", n, total+1)
	}
}
