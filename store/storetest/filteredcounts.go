package storetest

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// filteredCountCase is a filter of N=8 and its counts, by brute force
// (Total: the solutions of solver.All that match) and by the solver
// (Unique).
func filteredCountCase(t *testing.T, f solver.Filter) (n int, plan solver.FilteredCountPlan, want solver.Counts) {
	t.Helper()
	n = 8
	for p := range solver.All(n) {
		if f.Matches(p) {
			want.Total++
		}
	}
	c, err := solver.CountFiltered(context.Background(), n, f, solver.CountOptions{})
	if err != nil || c.Total != want.Total {
		t.Fatalf("CountFiltered(%d, %v) = %+v, %v; brute force counts %d", n, f, c, err, want.Total)
	}
	want.Unique = c.Unique
	plan, err = solver.PlanFilteredCount(n, f)
	if err != nil {
		t.Fatal(err)
	}
	return n, plan, want
}

// testFilteredCounts asks for a filtered count, writes its chunks in a
// random order with duplicates, and checks the sum against brute force;
// asking again changes nothing.
func testFilteredCounts[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	f := solver.Filter{Queens: []solver.Square{{Row: 1, Col: 4}}, Empty: []solver.Square{{Row: 5, Col: 2}, {Row: 0, Col: 0}}}
	n, plan, want := filteredCountCase(t, f)
	if _, err := s.FilteredCount(ctx, n, f); nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
		t.Fatalf("FilteredCount before any request: %v, want ENOTFOUND", err)
	}
	var queued []int
	req := store.FilteredCountRequest{N: n, Filter: f, Chunks: len(plan.Chunks)}
	fc, created, err := s.RequestFilteredCount(ctx, req, func(_ context.Context, tx TTx, todo []int) error {
		if noTx(tx) {
			return errors.New("no transaction")
		}
		queued = todo
		return nil
	})
	if err != nil || !created || fc.State != store.Running || fc.ChunksTotal != len(plan.Chunks) || fc.ChunksDone != 0 || fc.RequestedAt.IsZero() {
		t.Fatalf("RequestFilteredCount = %+v, %v, %v", fc, created, err)
	}
	if len(queued) != len(plan.Chunks) {
		t.Fatalf("onCreate got %d chunks, want %d", len(queued), len(plan.Chunks))
	}
	again, created, err := s.RequestFilteredCount(ctx, req, func(context.Context, TTx, []int) error {
		t.Error("onCreate ran for a count asked for before")
		return nil
	})
	if err != nil || created || again.State != store.Running {
		t.Fatalf("asking again: %+v, %v, %v", again, created, err)
	}
	other := req
	other.Chunks++
	_, _, err = s.RequestFilteredCount(ctx, other, nil)
	wantCode(t, err, nqueens.ECONFLICT, "asking with another number of chunks")

	// An inTx error leaves the chunk unwritten.
	first := store.FilteredChunkWrite{N: n, Filter: f, Index: 0, Counts: plan.Chunks[0].CountFiltered(plan.Filter)}
	if _, err := s.WriteFilteredChunk(ctx, first, func(context.Context, TTx) error { return errors.New("boom") }); err == nil {
		t.Fatal("WriteFilteredChunk with a failing inTx succeeded")
	}
	if fc, err := s.FilteredCount(ctx, n, f); err != nil || fc.ChunksDone != 0 {
		t.Fatalf("after a rolled back chunk: %+v, %v", fc, err)
	}

	order := rand.Perm(len(plan.Chunks))
	order = append(order[:1], order...) // the first twice, as a duplicate job would
	for i, idx := range order {
		w := store.FilteredChunkWrite{N: n, Filter: f, Index: idx, Counts: plan.Chunks[idx].CountFiltered(plan.Filter)}
		ran := false
		fc, err := s.WriteFilteredChunk(ctx, w, func(context.Context, TTx) error { ran = true; return nil })
		if err != nil || !ran {
			t.Fatalf("WriteFilteredChunk(%d) = %+v, %v (inTx ran: %v)", idx, fc, err, ran)
		}
		if last := i == len(order)-1; last != (fc.State == store.Done) {
			t.Fatalf("after %d of %d writes the count is %s", i+1, len(order), fc.State)
		}
	}
	// The count is kept by the filter's canonical key: the same filter
	// written in another order finds it.
	reordered := solver.Filter{Queens: f.Queens, Empty: []solver.Square{f.Empty[1], f.Empty[0], f.Empty[1]}}
	got, err := s.FilteredCount(ctx, n, reordered)
	if err != nil || got.Filter != f.Key() || got.State != store.Done || got.Total != want.Total || got.Unique != want.Unique ||
		got.ChunksDone != got.ChunksTotal || got.FinishedAt.IsZero() {
		t.Fatalf("FilteredCount = %+v, %v; want done with total %d, unique %d", got, err, want.Total, want.Unique)
	}
	if fc, err := s.WriteFilteredChunk(ctx, first, nil); err != nil || fc.Total != want.Total || fc.ChunksDone != fc.ChunksTotal {
		t.Fatalf("writing a chunk of a done count: %+v, %v", fc, err)
	}
	if fc, created, err := s.RequestFilteredCount(ctx, req, nil); err != nil || created || fc.State != store.Done || fc.Total != want.Total {
		t.Fatalf("asking for a done count: %+v, %v, %v", fc, created, err)
	}
}

// testFilteredCountBadInput checks that bad requests are EINVALID, with
// nothing written.
func testFilteredCountBadInput[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 1}}, Empty: []solver.Square{{Row: 2, Col: 2}}}
	var tooMany solver.Filter
	for i := range solver.MaxFilterSquares + 1 {
		tooMany.Empty = append(tooMany.Empty, solver.Square{Row: i / 8 % 8, Col: i % 8})
	}
	bad := []struct {
		name string
		req  store.FilteredCountRequest
	}{
		{"N=0", store.FilteredCountRequest{N: 0, Filter: f, Chunks: 1}},
		{"off the board", store.FilteredCountRequest{N: 8, Filter: solver.Filter{Queens: []solver.Square{{Row: 8, Col: 1}}}, Chunks: 1}},
		{"too many squares", store.FilteredCountRequest{N: 8, Filter: tooMany, Chunks: 1}},
		{"no chunks", store.FilteredCountRequest{N: 8, Filter: f, Chunks: 0}},
	}
	for _, tt := range bad {
		_, _, err := s.RequestFilteredCount(ctx, tt.req, nil)
		wantCode(t, err, nqueens.EINVALID, tt.name)
		if tt.req.N >= 1 {
			_, err = s.FilteredCount(ctx, tt.req.N, tt.req.Filter)
			if tt.name != "no chunks" {
				wantCode(t, err, nqueens.EINVALID, "FilteredCount, "+tt.name)
			}
		}
	}
	_, err := s.WriteFilteredChunk(ctx, store.FilteredChunkWrite{N: 8, Filter: f, Index: 0}, nil)
	wantCode(t, err, nqueens.ENOTFOUND, "a chunk of a count never asked for")
	if _, _, err := s.RequestFilteredCount(ctx, store.FilteredCountRequest{N: 8, Filter: f, Chunks: 3}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.WriteFilteredChunk(ctx, store.FilteredChunkWrite{N: 8, Filter: f, Index: 3}, nil)
	wantCode(t, err, nqueens.EINVALID, "a chunk index past the last")
	_, err = s.WriteFilteredChunk(ctx, store.FilteredChunkWrite{N: 8, Filter: f, Index: -1}, nil)
	wantCode(t, err, nqueens.EINVALID, "a negative chunk index")
	_, err = s.WriteFilteredChunk(ctx, store.FilteredChunkWrite{N: 8, Filter: f, Index: 0, Counts: solver.Counts{Total: 1, Unique: 2}}, nil)
	wantCode(t, err, nqueens.EINVALID, "more classes than solutions")
	if fc, err := s.FilteredCount(ctx, 8, f); err != nil || fc.ChunksDone != 0 {
		t.Errorf("after bad writes: %+v, %v", fc, err)
	}
}

// testFilteredCountResume fails a count halfway and asks for it again: it
// runs again with only the chunks not written yet to do, and ends with
// brute force's count; a done count cannot fail.
func testFilteredCountResume[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	f := solver.Filter{Queens: []solver.Square{{Row: 3, Col: 3}}, Empty: []solver.Square{{Row: 0, Col: 6}}}
	n, plan, want := filteredCountCase(t, f)
	req := store.FilteredCountRequest{N: n, Filter: f, Chunks: len(plan.Chunks)}
	_, err := s.FailFilteredCount(ctx, n, f, "never asked for")
	wantCode(t, err, nqueens.ENOTFOUND, "failing a count never asked for")
	if _, _, err := s.RequestFilteredCount(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	half := len(plan.Chunks) / 2
	write := func(idx int) store.FilteredCount {
		t.Helper()
		fc, err := s.WriteFilteredChunk(ctx, store.FilteredChunkWrite{N: n, Filter: f, Index: idx, Counts: plan.Chunks[idx].CountFiltered(plan.Filter)}, nil)
		if err != nil {
			t.Fatalf("WriteFilteredChunk(%d): %v", idx, err)
		}
		return fc
	}
	for i := range half {
		write(i)
	}
	fc, err := s.FailFilteredCount(ctx, n, f, "chunk 5 failed 5 times")
	if err != nil || fc.State != store.Failed || fc.LastError != "chunk 5 failed 5 times" || fc.ChunksDone != half {
		t.Fatalf("FailFilteredCount = %+v, %v", fc, err)
	}
	if again, err := s.FailFilteredCount(ctx, n, f, "another reason"); err != nil || again.LastError != fc.LastError {
		t.Errorf("failing a failed count again: %+v, %v; want it unchanged", again, err)
	}
	var todo []int
	fc, created, err := s.RequestFilteredCount(ctx, req, func(_ context.Context, _ TTx, chunks []int) error {
		todo = chunks
		return nil
	})
	if err != nil || !created || fc.State != store.Running || fc.LastError != "" || fc.ChunksDone != half {
		t.Fatalf("resuming: %+v, %v, %v", fc, created, err)
	}
	if len(todo) != len(plan.Chunks)-half || (len(todo) > 0 && todo[0] != half) {
		t.Fatalf("resuming queued chunks %v, want %d to %d", todo, half, len(plan.Chunks)-1)
	}
	for _, idx := range todo {
		fc = write(idx)
	}
	if fc.State != store.Done || fc.Total != want.Total || fc.Unique != want.Unique {
		t.Fatalf("after resuming: %+v; want done with total %d, unique %d", fc, want.Total, want.Unique)
	}
	_, err = s.FailFilteredCount(ctx, n, f, "too late")
	wantCode(t, err, nqueens.ECONFLICT, "failing a done count")
}

// testRankIndexChunks counts N=8 by the zero filter's chunks (the rank
// index of a board that keeps counts only), written in a random order:
// FilteredCountChunks is ENOTFOUND until the last, then gives each chunk's
// counts by index, which the solver's listings of the chunks agree with,
// and whose sums are the board's counts.
func testRankIndexChunks[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	n, zero := 8, solver.Filter{}
	plan, err := solver.PlanFilteredCount(n, zero)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.FilteredCountChunks(ctx, n, zero)
	wantCode(t, err, nqueens.ENOTFOUND, "the chunks of a count never asked for")
	if _, _, err := s.RequestFilteredCount(ctx, store.FilteredCountRequest{N: n, Filter: zero, Chunks: len(plan.Chunks)}, nil); err != nil {
		t.Fatal(err)
	}
	for i, idx := range rand.Perm(len(plan.Chunks)) {
		if i == len(plan.Chunks)-1 {
			_, err := s.FilteredCountChunks(ctx, n, zero)
			wantCode(t, err, nqueens.ENOTFOUND, "the chunks of a count not done")
		}
		w := store.FilteredChunkWrite{N: n, Filter: zero, Index: idx, Counts: plan.Chunks[idx].CountFiltered(zero)}
		if _, err := s.WriteFilteredChunk(ctx, w, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.FilteredCountChunks(ctx, n, zero)
	if err != nil || len(got) != len(plan.Chunks) {
		t.Fatalf("FilteredCountChunks = %d chunks, %v; want %d", len(got), err, len(plan.Chunks))
	}
	var sum solver.Counts
	for i, c := range plan.Chunks {
		var total, unique uint64
		for range c.Walk(false, nil) {
			total++
		}
		for range c.Walk(true, nil) {
			unique++
		}
		if got[i].Total != total || got[i].Unique != unique {
			t.Errorf("chunk %d (%v): %d solutions, %d canonical; its listing has %d and %d", i, c.Prefix, got[i].Total, got[i].Unique, total, unique)
		}
		sum.Total, sum.Unique = sum.Total+got[i].Total, sum.Unique+got[i].Unique
	}
	want, err := solver.Count(ctx, n, solver.CountOptions{})
	if err != nil || sum.Total != want.Total || sum.Unique != want.Unique {
		t.Errorf("the chunks sum to %d solutions, %d classes; N=%d has %d and %d (%v)", sum.Total, sum.Unique, n, want.Total, want.Unique, err)
	}
}
