package graph

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
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

// TestMissingRankIndex: over a real store (SQLite), a rank of N=17 whose
// index is being counted is UNAVAILABLE saying how far the count is, one
// whose index failed says why and how to resume it, one of N=18, unknown
// to the store, is the solver's to refuse (too large to walk); once N=18
// is being counted with its counts only, the board's progress is what is
// missing, and N=20 has no index to wait for. None is an answer.
func TestMissingRankIndex(t *testing.T) {
	ctx := t.Context()
	st := sqlitetest.OpenTemp(t)
	opts := DefaultOptions()
	opts.Boards, opts.Stored = st, st
	r, err := NewResolver(opts)
	if err != nil {
		t.Fatal(err)
	}
	l := indexedListing{r}
	const n = 17
	zero := solver.Filter{}
	plan, err := solver.PlanFilteredCount(n, zero)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.RequestFilteredCount(ctx, store.FilteredCountRequest{N: n, Filter: zero, Chunks: len(plan.Chunks)}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		w := store.FilteredChunkWrite{N: n, Filter: zero, Index: i, Counts: plan.Chunks[i].CountFiltered(zero)}
		if _, err := st.WriteFilteredChunk(ctx, w, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := func(err error, parts ...string) {
		t.Helper()
		var ae *apierror.Error
		if !errors.As(err, &ae) || ae.Code != apierror.Unavailable || !errors.Is(err, solverpool.ErrNoWalk) {
			t.Fatalf("%v; want UNAVAILABLE, too large to walk", err)
		}
		for _, part := range parts {
			if !strings.Contains(ae.Message, part) {
				t.Errorf("%q does not say %q", ae.Message, part)
			}
		}
	}
	_, err = l.SolutionAt(ctx, n, 5, false)
	want(err, fmt.Sprintf("the rank index of N=17 is being counted: 2 of %d chunks done", len(plan.Chunks)))
	var first solver.Placement
	for p := range solver.AllUnique(n) {
		first = p.Clone()
		break
	}
	_, err = l.Rank(ctx, n, first, true)
	want(err, "being counted")
	if _, err := st.FailFilteredCount(ctx, n, zero, "chunk 7 failed 5 times"); err != nil {
		t.Fatal(err)
	}
	_, err = l.SolutionAt(ctx, n, 5, true)
	want(err, fmt.Sprintf("failed with 2 of %d chunks counted (chunk 7 failed 5 times)", len(plan.Chunks)), "precomputing the board again resumes it")
	_, err = l.SolutionAt(ctx, 18, 5, false)
	want(err)
	// Boards kept as counts only, planned by tasks, without an index.
	for _, plan := range []store.BoardPlan{{N: 18, Tasks: true, TasksPerChunk: 256, SolverVersion: "test"}, {N: 20, Tasks: true, TasksPerChunk: 256, SolverVersion: "test"}} {
		if _, _, err := st.PlanBoard(ctx, plan, nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = l.SolutionAt(ctx, 18, 5, false)
	want(err, "N=18 is being counted: 0 of", "its rank index is counted after it")
	_, err = l.Rank(ctx, 20, solver.Placement{}, false)
	want(err, "N=20 keeps counts only and has no rank index (boards have one up to N=19)")
}
