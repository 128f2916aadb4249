package storetest

import (
	"context"
	"errors"
	"iter"
	"sync"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// plan plans board n at depth, storing solutions, and returns its chunks.
func plan[TTx any](t *testing.T, b *bundle[TTx], n, depth int) []solver.Chunk {
	t.Helper()
	if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: n, ChunkDepth: depth, StoresSolutions: true, SolverVersion: SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		t.Fatal(err)
	}
	return chunks
}

func write[TTx any](t *testing.T, b *bundle[TTx], c solver.Chunk) bool {
	t.Helper()
	last, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, nil)
	if err != nil {
		t.Fatalf("WriteChunk(%v): %v", c, err)
	}
	return last
}

// chunkRows reads the stored solutions of one chunk, by a page from just
// before its prefix.
func chunkRows[TTx any](t *testing.T, b *bundle[TTx], c solver.Chunk) []solver.Placement {
	t.Helper()
	// The prefix followed by zeros sorts before the chunk's solutions and
	// is none of them (its rows below the prefix attack each other).
	cursor := make(solver.Placement, c.N)
	copy(cursor, c.Prefix)
	page, err := b.store.Page(b.ctx, store.PageRequest{N: c.N, Cursor: cursor, Limit: store.MaxPageLimit})
	if err != nil {
		t.Fatal(err)
	}
	var out []solver.Placement
	for _, s := range page {
		if hasPrefix(s.Placement, c.Prefix) {
			out = append(out, s.Placement)
		}
	}
	return out
}

func hasPrefix(p, prefix solver.Placement) bool {
	return len(p) >= len(prefix) && p[:len(prefix)].Compare(prefix) == 0
}

func collect(seq iter.Seq[solver.Placement]) []solver.Placement {
	var out []solver.Placement
	for p := range seq {
		out = append(out, p.Clone())
	}
	return out
}

// testIdempotentChunks writes every chunk twice: the second write changes
// nothing, the last-chunk signal comes once, and the board's counts are
// counted once.
func testIdempotentChunks[TTx any](t *testing.T, b *bundle[TTx]) {
	const n = 8
	chunks := plan(t, b, n, 2)
	calls := 0
	countCalls := func(ctx context.Context, tx TTx) error {
		if noTx(tx) {
			t.Error("inTx got no transaction")
		}
		calls++
		return nil
	}
	lasts := 0
	for i, c := range chunks {
		for range 2 {
			last, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, countCalls)
			if err != nil {
				t.Fatal(err)
			}
			if last {
				lasts++
				if i != len(chunks)-1 {
					t.Errorf("chunk %d of %d reported last", i, len(chunks))
				}
			}
		}
		if got, want := chunkRows(t, b, c), collect(c.Solutions()); !samePlacements(got, want) {
			t.Fatalf("%v written twice holds %v, want %v", c, got, want)
		}
	}
	if lasts != 1 || calls != 2*len(chunks) {
		t.Errorf("last chunk reported %d times, inTx called %d times; want 1 and %d (inTx runs on a repeated write too)", lasts, calls, 2*len(chunks))
	}
	board, err := b.store.Board(b.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if board.ChunksDone != len(chunks) || board.SolutionsDone != oeis.MustLoad(t)[n].Total {
		t.Errorf("progress %d chunks, %d solutions; want %d chunks, each counted once", board.ChunksDone, board.SolutionsDone, len(chunks))
	}
	done, err := b.store.FinishBoard(b.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	checkBoardCounts(t, done, oeis.MustLoad(t)[n])
	// Writing a chunk of a done board, and finishing it again, change
	// nothing.
	if write(t, b, chunks[0]) {
		t.Error("rewriting a chunk of a done board reported last")
	}
	again, err := b.store.FinishBoard(b.ctx, n)
	if err != nil || !again.FinishedAt.Equal(done.FinishedAt) || *again.Counts != *done.Counts {
		t.Errorf("finishing again: %+v, %v; want the board unchanged, %+v", again, err, done)
	}
	if got, want := walk(t, b, n, false, 100, store.Forward), enumerate(n, false); !samePlacements(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}

// testConcurrentDuplicateChunks writes every chunk from two goroutines at
// once: still one signal for the last chunk and every solution once.
func testConcurrentDuplicateChunks[TTx any](t *testing.T, b *bundle[TTx]) {
	const n = 9
	chunks := plan(t, b, n, 2)
	var mu sync.Mutex
	lasts := 0
	var wg sync.WaitGroup
	for _, c := range chunks {
		for range 2 {
			wg.Go(func() {
				last, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, nil)
				if err != nil {
					t.Errorf("WriteChunk(%v): %v", c, err)
				}
				if last {
					mu.Lock()
					lasts++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if lasts != 1 {
		t.Fatalf("last chunk reported %d times, want once", lasts)
	}
	board, err := b.store.FinishBoard(b.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	checkBoardCounts(t, board, oeis.MustLoad(t)[n])
	if got, want := walk(t, b, n, false, 100, store.Forward), enumerate(n, false); !samePlacements(got, want) {
		t.Errorf("stored %d solutions, want the solver's %d", len(got), len(want))
	}
}

// checkChunkAbsent checks that nothing of chunk c was kept: no rows, not
// done, no progress on the board.
func checkChunkAbsent[TTx any](t *testing.T, b *bundle[TTx], c solver.Chunk, index int) {
	t.Helper()
	if rows := chunkRows(t, b, c); len(rows) != 0 {
		t.Errorf("a failed write of %v left %d rows", c, len(rows))
	}
	recs, err := b.store.Chunks(b.ctx, c.N)
	if err != nil {
		t.Fatal(err)
	}
	if r := recs[index]; r.Counts != nil || !r.DoneAt.IsZero() || r.Prefix.Compare(c.Prefix) != 0 {
		t.Errorf("after a failed write, chunk row %d is %+v; want %v, not done", index, r, c.Prefix)
	}
	board, err := b.store.Board(b.ctx, c.N)
	if err != nil {
		t.Fatal(err)
	}
	if board.ChunksDone != 0 || board.SolutionsDone != 0 {
		t.Errorf("after a failed write, progress is %d chunks, %d solutions; want none", board.ChunksDone, board.SolutionsDone)
	}
}

// retry writes chunk c again and checks that all its solutions are there.
func retry[TTx any](t *testing.T, b *bundle[TTx], c solver.Chunk) {
	t.Helper()
	write(t, b, c)
	if got, want := chunkRows(t, b, c), collect(c.Solutions()); !samePlacements(got, want) {
		t.Errorf("the retried %v holds %d rows, want the solver's %d", c, len(got), len(want))
	}
}

// bigChunk plans N=12 at depth 1 (12 chunks of about 1,200 solutions) and
// returns its chunk with the given index.
func bigChunk[TTx any](t *testing.T, b *bundle[TTx], index int) solver.Chunk {
	t.Helper()
	return plan(t, b, 12, 1)[index]
}

// testAtomicChunkCancelled cancels the context halfway through a chunk's
// solutions: nothing of the chunk remains, and a retry writes it whole.
func testAtomicChunkCancelled[TTx any](t *testing.T, b *bundle[TTx]) {
	const index = 5
	c := bigChunk(t, b, index)
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	yielded := 0
	cancelling := func(yield func(solver.Placement) bool) {
		for p := range c.Solutions() {
			if yielded++; yielded == 600 {
				cancel()
			}
			if !yield(p) {
				return
			}
		}
	}
	_, err := b.store.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: cancelling}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteChunk cancelled after %d solutions: %v, want context.Canceled", yielded, err)
	}
	checkChunkAbsent(t, b, c, index)
	retry(t, b, c)
}

// testAtomicChunkInTxError fails the caller's part of the transaction: the
// chunk's rows are rolled back with it.
func testAtomicChunkInTxError[TTx any](t *testing.T, b *bundle[TTx]) {
	const index = 3
	c := bigChunk(t, b, index)
	jobFailed := errors.New("job could not complete")
	_, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()},
		func(context.Context, TTx) error { return jobFailed })
	if !errors.Is(err, jobFailed) {
		t.Fatalf("WriteChunk with a failing inTx: %v, want its error", err)
	}
	checkChunkAbsent(t, b, c, index)
	retry(t, b, c)
}

// testAtomicChunkBadSolution feeds a chunk a solution of another chunk
// halfway: EINVALID, and nothing written.
func testAtomicChunkBadSolution[TTx any](t *testing.T, b *bundle[TTx]) {
	const index = 7
	c := bigChunk(t, b, index)
	sols := collect(c.Solutions())
	foreign := collect(solver.Chunk{N: 12, Prefix: solver.Placement{0}}.Solutions())[0]
	for name, bad := range map[string][]solver.Placement{
		"another chunk's solution": append(sols[:700:700], foreign),
		"a repeated solution":      append(sols[:700:700], sols[699]),
		"out of order":             append(sols[:700:700], sols[10]),
		"too short":                append(sols[:700:700], sols[700][:11]),
	} {
		_, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Solutions: slicesValues(bad)}, nil)
		wantCode(t, err, nqueens.EINVALID, name)
		checkChunkAbsent(t, b, c, index)
	}
	retry(t, b, c)
}

func slicesValues(ps []solver.Placement) iter.Seq[solver.Placement] {
	return func(yield func(solver.Placement) bool) {
		for _, p := range ps {
			if !yield(p) {
				return
			}
		}
	}
}

// testCountsOnlyBoard computes a board that keeps counts only: chunks
// written with counts alone or with solutions (counted, not stored), its
// final counts right, and no pages.
func testCountsOnlyBoard[TTx any](t *testing.T, b *bundle[TTx]) {
	const n = 11
	if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: n, ChunkDepth: 2, SolverVersion: SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	bad := chunks[0].Count()
	bad.Unique++
	_, err = b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: chunks[0], Counts: bad}, nil)
	wantCode(t, err, nqueens.EINVALID, "WriteChunk with counts that do not add up")
	for i, c := range chunks {
		w := store.ChunkWrite{Chunk: c, Counts: c.Count()}
		if i%2 == 1 {
			w = store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}
		}
		if _, err := b.store.WriteChunk(b.ctx, w, nil); err != nil {
			t.Fatal(err)
		}
	}
	board, err := b.store.FinishBoard(b.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	checkBoardCounts(t, board, oeis.MustLoad(t)[n])
	if board.StoresSolutions {
		t.Error("a counts-only board says it stores solutions")
	}
	_, err = b.store.Page(b.ctx, store.PageRequest{N: n, Limit: 10})
	wantCode(t, err, nqueens.ENOTFOUND, "Page of a counts-only board")
	_, err = b.store.SolutionAt(b.ctx, n, 1, false)
	wantCode(t, err, nqueens.ENOTFOUND, "SolutionAt of a counts-only board")
	// Half of its chunks were written with their counts only.
	_, err = b.store.SquareCounts(b.ctx, n)
	wantCode(t, err, nqueens.ENOTFOUND, "SquareCounts of a board some chunks of which came without them")
}
