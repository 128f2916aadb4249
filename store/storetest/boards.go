package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// testBoardLifecycle walks a board through its states: requested
// (pending), planned (running), failed, resumed, done; every step
// idempotent where it says so.
func testBoardLifecycle[TTx any](t *testing.T, b *bundle[TTx]) {
	const n = 7
	ctx, s := b.ctx, b.store
	pending, created, err := s.RequestBoard(ctx, store.BoardRequest{N: n})
	if err != nil || !created || pending.State != store.Pending || pending.N != n || pending.Counts != nil || !pending.StartedAt.IsZero() {
		t.Fatalf("RequestBoard: %+v, created %t, %v; want a new pending board", pending, created, err)
	}
	if again, created, err := s.RequestBoard(ctx, store.BoardRequest{N: n}); err != nil || created || again.State != store.Pending {
		t.Fatalf("RequestBoard again: %+v, created %t, %v; want the same pending board", again, created, err)
	}

	plan := store.BoardPlan{N: n, ChunkDepth: 2, StoresSolutions: true, SolverVersion: SolverVersion}
	chunks, _ := solver.Chunks(n, plan.ChunkDepth)
	running, claimed, err := s.PlanBoard(ctx, plan, nil)
	if err != nil || !claimed || running.State != store.Running || running.ChunkDepth != 2 || running.ChunksTotal != len(chunks) ||
		!running.StoresSolutions || running.SolverVersion != SolverVersion || running.StartedAt.IsZero() {
		t.Fatalf("PlanBoard: %+v, claimed %t, %v; want it running with %d chunks", running, claimed, err, len(chunks))
	}
	again, claimed, err := s.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: 3, SolverVersion: "other"}, nil)
	if err != nil || claimed || again.ChunkDepth != 2 || again.SolverVersion != SolverVersion {
		t.Fatalf("PlanBoard of a running board: %+v, claimed %t, %v; want it unchanged", again, claimed, err)
	}
	recs, err := s.Chunks(ctx, n)
	if err != nil || len(recs) != len(chunks) {
		t.Fatalf("Chunks: %d rows, %v; want %d", len(recs), err, len(chunks))
	}
	for i, r := range recs {
		if r.N != n || r.Index != i || r.Prefix.Compare(chunks[i].Prefix) != 0 || r.Counts != nil || !r.DoneAt.IsZero() {
			t.Fatalf("chunk row %d = %+v, want prefix %v, not done", i, r, chunks[i].Prefix)
		}
	}

	write(t, b, chunks[0])
	_, err = s.FinishBoard(ctx, n)
	wantCode(t, err, nqueens.ECONFLICT, "FinishBoard with chunks missing")
	_, err = s.SolutionAt(ctx, n, 1, false)
	wantCode(t, err, nqueens.ENOTFOUND, "SolutionAt of a running board")

	failed, err := s.FailBoard(ctx, n, "worker lost")
	if err != nil || failed.State != store.Failed || failed.LastError != "worker lost" {
		t.Fatalf("FailBoard: %+v, %v", failed, err)
	}
	_, err = s.WriteChunk(ctx, store.ChunkWrite{Chunk: chunks[1], Solutions: chunks[1].Solutions()}, nil)
	wantCode(t, err, nqueens.ECONFLICT, "WriteChunk of a failed board")
	_, _, err = s.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: 1, StoresSolutions: true, SolverVersion: SolverVersion}, nil)
	wantCode(t, err, nqueens.ECONFLICT, "PlanBoard of a failed board under another plan")
	resumed, claimed, err := s.PlanBoard(ctx, plan, nil)
	if err != nil || !claimed || resumed.State != store.Running || resumed.ChunksDone != 1 || resumed.LastError != "" ||
		!resumed.StartedAt.Equal(running.StartedAt) {
		t.Fatalf("PlanBoard of a failed board: %+v, claimed %t, %v; want it running again with its done chunk", resumed, claimed, err)
	}

	for _, c := range chunks[1:] {
		write(t, b, c)
	}
	done, err := s.FinishBoard(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != store.Done || done.FinishedAt.Before(done.StartedAt) || done.Duration < 0 ||
		(done.FinishedAt.Sub(done.StartedAt)-done.Duration).Abs() > time.Millisecond {
		t.Errorf("finished board %+v: want done, finished after started, duration = finished − started", done)
	}
	_, err = s.FailBoard(ctx, n, "too late")
	wantCode(t, err, nqueens.ECONFLICT, "FailBoard of a done board")
	if again, claimed, err := s.PlanBoard(ctx, plan, nil); err != nil || claimed || again.State != store.Done {
		t.Errorf("PlanBoard of a done board: %+v, claimed %t, %v; want it unchanged", again, claimed, err)
	}

	// A board planned straight away, without a request, lists after N=7.
	Load(ctx, t, s, 5, 1)
	boards, err := s.Boards(ctx)
	if err != nil || len(boards) != 2 || boards[0].N != 5 || boards[1].N != n {
		t.Fatalf("Boards: %+v, %v; want N=5 and N=7 in order", boards, err)
	}
	recs, err = s.Chunks(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	var sum solver.Counts
	for _, r := range recs {
		if r.Counts == nil || r.DoneAt.IsZero() || r.DoneAt.Before(done.StartedAt) {
			t.Fatalf("chunk row %+v of a done board: want counts and a time", r)
		}
		if want := chunks[r.Index].Count(); *r.Counts != want {
			t.Errorf("chunk %d counts %+v, the solver's %+v", r.Index, *r.Counts, want)
		}
		sum.Add(*r.Counts)
	}
	if sum != *done.Counts {
		t.Errorf("chunk counts sum to %+v, the board has %+v", sum, *done.Counts)
	}
}

// testBoardWithoutChunks plans a board whose chunk depth leaves no chunk
// (N=3 at depth 3: no three queens fit): it finishes at once, with no
// solutions.
func testBoardWithoutChunks[TTx any](t *testing.T, b *bundle[TTx]) {
	board, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: 3, ChunkDepth: 3, StoresSolutions: true, SolverVersion: SolverVersion}, nil)
	if err != nil || board.ChunksTotal != 0 {
		t.Fatalf("PlanBoard(N=3, depth 3): %+v, %v; want no chunks", board, err)
	}
	done, err := b.store.FinishBoard(b.ctx, 3)
	if err != nil || done.State != store.Done || *done.Counts != (solver.Counts{}) {
		t.Fatalf("FinishBoard(3): %+v, %v; want done with zero counts", done, err)
	}
	page, err := b.store.Page(b.ctx, store.PageRequest{N: 3, Limit: 10})
	if err != nil || len(page) != 0 {
		t.Errorf("Page(N=3) = %v, %v; want an empty page", page, err)
	}
}

// testBadInput checks that bad arguments are EINVALID and unknown things
// ENOTFOUND, with nothing written.
func testBadInput[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	Load(ctx, t, s, 6, 1)
	for _, n := range []int{0, -1, solver.MaxSearchN + 1} {
		_, err := s.Board(ctx, n)
		wantCode(t, err, nqueens.EINVALID, "Board(n out of range)")
		_, _, err = s.RequestBoard(ctx, store.BoardRequest{N: n})
		wantCode(t, err, nqueens.EINVALID, "RequestBoard(n out of range)")
		_, err = s.Page(ctx, store.PageRequest{N: n, Limit: 1})
		wantCode(t, err, nqueens.EINVALID, "Page(n out of range)")
		_, err = s.SolutionAt(ctx, n, 1, false)
		wantCode(t, err, nqueens.EINVALID, "SolutionAt(n out of range)")
		_, err = s.FinishBoard(ctx, n)
		wantCode(t, err, nqueens.EINVALID, "FinishBoard(n out of range)")
	}
	_, err := s.Board(ctx, 9)
	wantCode(t, err, nqueens.ENOTFOUND, "Board(unknown)")
	_, err = s.Chunks(ctx, 9)
	wantCode(t, err, nqueens.ENOTFOUND, "Chunks(unknown)")
	_, err = s.FinishBoard(ctx, 9)
	wantCode(t, err, nqueens.ENOTFOUND, "FinishBoard(unknown)")
	_, err = s.FailBoard(ctx, 9, "x")
	wantCode(t, err, nqueens.ENOTFOUND, "FailBoard(unknown)")
	_, err = s.FailBoard(ctx, 6, "")
	wantCode(t, err, nqueens.EINVALID, "FailBoard without a reason")
	_, err = s.Page(ctx, store.PageRequest{N: 9, Limit: 1})
	wantCode(t, err, nqueens.ENOTFOUND, "Page(unknown board)")

	for name, req := range map[string]store.PageRequest{
		"cursor too short":  {N: 6, Cursor: solver.Placement{1, 3, 5}, Limit: 1},
		"cursor too long":   {N: 6, Cursor: solver.Placement{1, 3, 5, 0, 2, 4, 0}, Limit: 1},
		"cursor off board":  {N: 6, Cursor: solver.Placement{1, 3, 5, 0, 2, 6}, Limit: 1},
		"negative column":   {N: 6, Cursor: solver.Placement{1, 3, 5, 0, 2, -1}, Limit: 1},
		"negative limit":    {N: 6, Limit: -1},
		"limit too large":   {N: 6, Limit: store.MaxPageLimit + 1},
		"unknown direction": {N: 6, Direction: 7, Limit: 1},
	} {
		_, err := s.Page(ctx, req)
		wantCode(t, err, nqueens.EINVALID, "Page: "+name)
	}

	for name, p := range map[string]store.BoardPlan{
		"depth beyond N":    {N: 6, ChunkDepth: 7, SolverVersion: "v"},
		"negative depth":    {N: 6, ChunkDepth: -1, SolverVersion: "v"},
		"no solver version": {N: 6, ChunkDepth: 1},
		"N out of range":    {N: 40, ChunkDepth: 1, SolverVersion: "v"},
	} {
		_, _, err := s.PlanBoard(ctx, p, nil)
		wantCode(t, err, nqueens.EINVALID, "PlanBoard: "+name)
	}

	unplanned := solver.Chunk{N: 9, Prefix: solver.Placement{0}}
	_, err = s.WriteChunk(ctx, store.ChunkWrite{Chunk: unplanned, Solutions: unplanned.Solutions()}, nil)
	wantCode(t, err, nqueens.ENOTFOUND, "WriteChunk of an unplanned board")
	deeper := solver.Chunk{N: 6, Prefix: solver.Placement{1, 3}}
	_, err = s.WriteChunk(ctx, store.ChunkWrite{Chunk: deeper, Solutions: deeper.Solutions()}, nil)
	wantCode(t, err, nqueens.ENOTFOUND, "WriteChunk of a prefix at another depth")
	attacking := solver.Chunk{N: 6, Prefix: solver.Placement{1, 2}}
	_, err = s.WriteChunk(ctx, store.ChunkWrite{Chunk: attacking, Solutions: attacking.Solutions()}, nil)
	wantCode(t, err, nqueens.EINVALID, "WriteChunk of an attacking prefix")

	if _, _, err := s.PlanBoard(ctx, store.BoardPlan{N: 8, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "v"}, nil); err != nil {
		t.Fatal(err)
	}
	first := solver.Chunk{N: 8, Prefix: solver.Placement{0}}
	_, err = s.WriteChunk(ctx, store.ChunkWrite{Chunk: first, Counts: first.Count()}, nil)
	wantCode(t, err, nqueens.EINVALID, "WriteChunk of a storing board without solutions")
}

// testBoardsByState puts boards in each state and lists them by state:
// each list holds exactly the boards in one of its states, by ascending
// N; no state lists them all; an unknown state is EINVALID.
func testBoardsByState[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	for _, n := range []int{9, 3} {
		if _, _, err := s.RequestBoard(ctx, store.BoardRequest{N: n}); err != nil {
			t.Fatal(err)
		}
	}
	Load(ctx, t, s, 5, 1)
	Load(ctx, t, s, 4, 1)
	for _, n := range []int{7, 6} {
		if _, _, err := s.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: 1, StoresSolutions: true, SolverVersion: SolverVersion}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.FailBoard(ctx, 6, "worker lost"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		states []store.BoardState
		want   []int
	}{
		{nil, []int{3, 4, 5, 6, 7, 9}},
		{[]store.BoardState{store.Pending}, []int{3, 9}},
		{[]store.BoardState{store.Running}, []int{7}},
		{[]store.BoardState{store.Done}, []int{4, 5}},
		{[]store.BoardState{store.Failed}, []int{6}},
		{[]store.BoardState{store.Failed, store.Pending}, []int{3, 6, 9}},
		{[]store.BoardState{store.Done, store.Done}, []int{4, 5}},
	} {
		boards, err := s.Boards(ctx, c.states...)
		if err != nil {
			t.Fatalf("Boards(%v): %v", c.states, err)
		}
		var got []int
		for _, bd := range boards {
			if len(c.states) > 0 && !slices.Contains(c.states, bd.State) {
				t.Errorf("Boards(%v) lists N=%d, %s", c.states, bd.N, bd.State)
			}
			got = append(got, bd.N)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Boards(%v) = N %v, want %v", c.states, got, c.want)
		}
	}
	_, err := s.Boards(ctx, store.Unknown)
	wantCode(t, err, nqueens.EINVALID, "Boards of the unknown state")
	_, err = s.Boards(ctx, "finished")
	wantCode(t, err, nqueens.EINVALID, "Boards of a state that does not exist")
}
