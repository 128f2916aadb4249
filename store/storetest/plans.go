package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// testTaskBoard computes boards planned by the counter's tasks: chunk rows
// that are runs of the tasks in order (N=10, seven a chunk, the last one
// shorter), writes of their counts (idempotent, one last chunk), and the
// board's counts right. N=3 has one task, the whole board, with all four
// frame fields -1.
func testTaskBoard[TTx any](t *testing.T, b *bundle[TTx]) {
	ref := oeis.MustLoad(t)
	for _, p := range []store.BoardPlan{
		{N: 3, Tasks: true, SolverVersion: SolverVersion},
		{N: 10, Tasks: true, TasksPerChunk: 7, SolverVersion: SolverVersion},
	} {
		n, size := p.N, max(p.TasksPerChunk, 1)
		tasks, _ := solver.Tasks(n)
		var groups [][]solver.Task
		for i := 0; i < len(tasks); i += size {
			groups = append(groups, tasks[i:min(i+size, len(tasks))])
		}
		board, claimed, err := b.store.PlanBoard(b.ctx, p, nil)
		if err != nil || !claimed || !board.Tasks || board.StoresSolutions || board.ChunkDepth != 0 || board.ChunksTotal != len(groups) {
			t.Fatalf("PlanBoard(%+v): %+v, claimed %t, %v; want it running with %d chunks of tasks", p, board, claimed, err, len(groups))
		}
		recs, err := b.store.Chunks(b.ctx, n)
		if err != nil || len(recs) != len(groups) {
			t.Fatalf("Chunks(%d): %d rows, %v; want %d", n, len(recs), err, len(groups))
		}
		for i, r := range recs {
			if r.Index != i || !slices.Equal(r.Tasks, groups[i]) || r.Prefix != nil || r.Counts != nil {
				t.Fatalf("chunk row %d = %+v, want tasks %v, not done", i, r, groups[i])
			}
		}
		lasts := 0
		for i, g := range groups {
			var counts solver.Counts
			for _, task := range g {
				c, err := solver.CountTask(b.ctx, task)
				if err != nil {
					t.Fatal(err)
				}
				counts.Add(c)
			}
			for range 1 + i%2 { // every other chunk twice: the second write changes nothing
				last, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: g, Counts: counts}, nil)
				if err != nil {
					t.Fatalf("WriteChunk(%v): %v", g, err)
				}
				if last {
					lasts++
				}
			}
		}
		if lasts != 1 {
			t.Errorf("N=%d: the last chunk was reported %d times, want once", n, lasts)
		}
		done, err := b.store.FinishBoard(b.ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		checkBoardCounts(t, done, ref[n])
		_, err = b.store.Page(b.ctx, store.PageRequest{N: n, Limit: 10})
		wantCode(t, err, nqueens.ENOTFOUND, "Page of a board planned by tasks")
	}

	// Tasks are no chunk of a board planned by prefixes, a prefix no chunk
	// of a board planned by tasks, and a run of tasks that is not one of
	// the plan's no chunk either.
	if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: 9, ChunkDepth: 2, SolverVersion: SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	nine, _ := solver.Tasks(9)
	_, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: nine[:1], Counts: solver.Counts{}}, nil)
	wantCode(t, err, nqueens.ENOTFOUND, "WriteChunk of tasks to a board planned by prefixes")
	if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: 11, Tasks: true, TasksPerChunk: 2, SolverVersion: SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	c := solver.Chunk{N: 11, Prefix: solver.Placement{0}}
	_, err = b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: c, Counts: c.Count()}, nil)
	wantCode(t, err, nqueens.ENOTFOUND, "WriteChunk of a prefix to a board planned by tasks")
	eleven, _ := solver.Tasks(11)
	_, err = b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: eleven[1:3], Counts: solver.Counts{}}, nil)
	wantCode(t, err, nqueens.ENOTFOUND, "WriteChunk of tasks across two chunks")
	_, err = b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: eleven[:2], Solutions: solver.All(11)}, nil)
	wantCode(t, err, nqueens.EINVALID, "WriteChunk of tasks with solutions")
	bad := solver.Task{N: 11} // four queens in one corner: not a frame
	_, err = b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: []solver.Task{bad}}, nil)
	wantCode(t, err, nqueens.EINVALID, "WriteChunk of an invalid task")
	_, err = b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: []solver.Task{eleven[0], nine[1]}}, nil)
	wantCode(t, err, nqueens.EINVALID, "WriteChunk of tasks of two boards")
	_, _, err = b.store.PlanBoard(b.ctx, store.BoardPlan{N: 12, Tasks: true, StoresSolutions: true, SolverVersion: SolverVersion}, nil)
	wantCode(t, err, nqueens.EINVALID, "PlanBoard by tasks storing solutions")
	_, _, err = b.store.PlanBoard(b.ctx, store.BoardPlan{N: 12, Tasks: true, ChunkDepth: 2, SolverVersion: SolverVersion}, nil)
	wantCode(t, err, nqueens.EINVALID, "PlanBoard by tasks with a chunk depth")
}

// testPlanHook checks PlanBoard's onClaim: it runs in the transaction that
// claims the board, with the chunks to do, and only then; its error rolls
// the whole plan back.
func testPlanHook[TTx any](t *testing.T, b *bundle[TTx]) {
	const n = 7
	plan := store.BoardPlan{N: n, ChunkDepth: 2, StoresSolutions: true, SolverVersion: SolverVersion}
	chunks, _ := solver.Chunks(n, plan.ChunkDepth)
	refused := errors.New("jobs could not be queued")
	_, _, err := b.store.PlanBoard(b.ctx, plan, func(context.Context, TTx, store.Board, []store.ChunkRecord) error { return refused })
	if !errors.Is(err, refused) {
		t.Fatalf("PlanBoard with a failing onClaim: %v, want its error", err)
	}
	_, err = b.store.Board(b.ctx, n)
	wantCode(t, err, nqueens.ENOTFOUND, "Board after a plan rolled back")

	var got [][]store.ChunkRecord
	hook := func(ctx context.Context, tx TTx, board store.Board, todo []store.ChunkRecord) error {
		if noTx(tx) || board.State != store.Running || board.N != n {
			t.Errorf("onClaim got tx %v, board %+v; want a transaction and the running board", tx, board)
		}
		got = append(got, todo)
		return nil
	}
	if _, claimed, err := b.store.PlanBoard(b.ctx, plan, hook); err != nil || !claimed || len(got) != 1 {
		t.Fatalf("PlanBoard: claimed %t, %v, onClaim ran %d times; want claimed, once", claimed, err, len(got))
	}
	if len(got[0]) != len(chunks) {
		t.Fatalf("onClaim got %d chunks, want all %d", len(got[0]), len(chunks))
	}
	for i, r := range got[0] {
		if r.Index != i || r.Prefix.Compare(chunks[i].Prefix) != 0 || r.Tasks != nil {
			t.Fatalf("onClaim chunk %d = %+v, want prefix %v", i, r, chunks[i].Prefix)
		}
	}
	if _, claimed, err := b.store.PlanBoard(b.ctx, plan, hook); err != nil || claimed || len(got) != 1 {
		t.Fatalf("PlanBoard of a running board: claimed %t, %v, onClaim ran %d times; want unclaimed, not run", claimed, err, len(got))
	}

	// A failed board resumes with the chunks that are not done.
	write(t, b, chunks[0])
	write(t, b, chunks[2])
	if _, err := b.store.FailBoard(b.ctx, n, "chunk 1 failed"); err != nil {
		t.Fatal(err)
	}
	if _, claimed, err := b.store.PlanBoard(b.ctx, plan, hook); err != nil || !claimed || len(got) != 2 {
		t.Fatalf("PlanBoard of a failed board: claimed %t, %v, onClaim ran %d times; want claimed, run again", claimed, err, len(got))
	}
	var indexes []int
	for _, r := range got[1] {
		indexes = append(indexes, r.Index)
	}
	if len(indexes) != len(chunks)-2 || indexes[0] != 1 || indexes[1] != 3 {
		t.Errorf("resumed board: onClaim got chunks %v, want all but 0 and 2", indexes)
	}
}

// testTouchBoard checks the progress heartbeat: it moves a running
// board's updated_at and leaves other boards alone.
func testTouchBoard[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	wantCode(t, s.TouchBoard(ctx, 9), nqueens.ENOTFOUND, "TouchBoard of an unknown board")
	pending, _, err := s.RequestBoard(ctx, store.BoardRequest{N: 9})
	if err != nil {
		t.Fatal(err)
	}
	running, _, err := s.PlanBoard(ctx, store.BoardPlan{N: 8, ChunkDepth: 1, StoresSolutions: true, SolverVersion: SolverVersion}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := Load(ctx, t, s, 5, 1)
	time.Sleep(5 * time.Millisecond)
	for _, before := range []store.Board{pending, running, done} {
		if err := s.TouchBoard(ctx, before.N); err != nil {
			t.Fatalf("TouchBoard(%d): %v", before.N, err)
		}
		after, err := s.Board(ctx, before.N)
		if err != nil {
			t.Fatal(err)
		}
		if moved := after.UpdatedAt.After(before.UpdatedAt); moved != (before.State == store.Running) {
			t.Errorf("TouchBoard of a %s board: updated_at %v → %v", before.State, before.UpdatedAt, after.UpdatedAt)
		}
		after.UpdatedAt = before.UpdatedAt
		if after.State != before.State || after.ChunksDone != before.ChunksDone {
			t.Errorf("TouchBoard changed more than updated_at: %+v → %+v", before, after)
		}
	}
}
