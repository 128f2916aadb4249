package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// testSquareCounts checks the statistics of N=1..12 against a count over
// the stored rows, read back page by page: every square of all solutions
// and of the canonical ones. Their rows and columns sum to the published
// counts.
func testSquareCounts[TTx any](t *testing.T, b *bundle[TTx]) {
	ref := oeis.MustLoad(t)
	LoadRange(b.ctx, t, b.store, 1, 12)
	for n := 1; n <= 12; n++ {
		got, err := b.store.SquareCounts(b.ctx, n)
		if err != nil {
			t.Fatalf("SquareCounts(%d): %v", n, err)
		}
		want := solver.NewSquareCounts(n)
		for _, unique := range []bool{false, true} {
			table := want.All
			if unique {
				table = want.Unique
			}
			for _, p := range readAll(t, b, n, unique) {
				for r, c := range p {
					table[r*n+c]++
				}
			}
		}
		if got.N != n || !slices.Equal(got.All, want.All) || !slices.Equal(got.Unique, want.Unique) {
			t.Fatalf("N=%d: square counts %+v; the stored rows count %+v", n, got, want)
		}
		if err := got.Check(solver.Counts{Total: ref[n].Total, Unique: ref[n].Unique}); err != nil {
			t.Errorf("N=%d: %v", n, err)
		}
	}

	// A chunk written again after the board is done adds nothing.
	chunks, err := solver.Chunks(9, solver.DefaultChunkDepth(9))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := b.store.SquareCounts(b.ctx, 9)
	if _, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Chunk: chunks[3], Solutions: chunks[3].Solutions()}, nil); err != nil {
		t.Fatal(err)
	}
	if after, err := b.store.SquareCounts(b.ctx, 9); err != nil || !slices.Equal(after.All, before.All) || !slices.Equal(after.Unique, before.Unique) {
		t.Errorf("N=9 after a duplicate chunk: %+v, %v; want %+v", after, err, before)
	}
}

// testSquareCountsUnknown checks that statistics are ENOTFOUND while they
// are not known, and EINVALID for a bad N.
func testSquareCountsUnknown[TTx any](t *testing.T, b *bundle[TTx]) {
	_, err := b.store.SquareCounts(b.ctx, 7)
	wantCode(t, err, nqueens.ENOTFOUND, "SquareCounts of a board never requested")
	for _, n := range []int{0, -1, solver.MaxSearchN + 1} {
		_, err := b.store.SquareCounts(b.ctx, n)
		wantCode(t, err, nqueens.EINVALID, "SquareCounts of a bad N")
	}

	// Running: some chunks written.
	chunks := plan(t, b, 8, 1)
	write(t, b, chunks[0])
	_, err = b.store.SquareCounts(b.ctx, 8)
	wantCode(t, err, nqueens.ENOTFOUND, "SquareCounts of a running board")

	// A board planned by tasks counts without listing solutions.
	const n = 6
	if _, _, err := b.store.PlanBoard(b.ctx, store.BoardPlan{N: n, Tasks: true, SolverVersion: SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	tasks, _ := solver.Tasks(n)
	for _, task := range tasks {
		c, err := solver.CountTask(b.ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.store.WriteChunk(b.ctx, store.ChunkWrite{Tasks: []solver.Task{task}, Counts: c}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.store.FinishBoard(b.ctx, n); err != nil {
		t.Fatal(err)
	}
	_, err = b.store.SquareCounts(b.ctx, n)
	wantCode(t, err, nqueens.ENOTFOUND, "SquareCounts of a board planned by tasks")
}

// readAll reads every stored solution of N (the canonical ones when
// unique) back, in pages of the largest size.
func readAll[TTx any](t *testing.T, b *bundle[TTx], n int, unique bool) []solver.Placement {
	t.Helper()
	var out []solver.Placement
	req := store.PageRequest{N: n, Unique: unique, Direction: store.Forward, Limit: store.MaxPageLimit}
	for {
		page, err := b.store.Page(b.ctx, req)
		if err != nil {
			t.Fatalf("Page(%+v): %v", req, err)
		}
		for _, s := range page {
			out = append(out, s.Placement.Clone())
		}
		if len(page) < req.Limit {
			return out
		}
		req.Cursor = page[len(page)-1].Placement
	}
}

// CheckBackfill runs the backfill statement of docs/schema.md (the block
// tagged tag) for a board of N=8 that lost its statistics, as a board
// finished before the store kept them has none: the store does not serve
// them before, and serves what it had computed after. exec runs one SQL
// statement on the store's database.
func CheckBackfill(t *testing.T, s store.Reader, tag string, exec func(stmt string) error) {
	ctx := t.Context()
	LoadRange(ctx, t, s, 1, 8)
	want, err := s.SquareCounts(ctx, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec(`DELETE FROM square_counts WHERE n = 8`); err != nil {
		t.Fatal(err)
	}
	_, err = s.SquareCounts(ctx, 8)
	wantCode(t, err, nqueens.ENOTFOUND, "SquareCounts of a board without its rows")
	blocks := SchemaExamples(t, tag)
	for _, block := range blocks {
		for stmt := range strings.SplitSeq(block, ";\n") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if err := exec(stmt); err != nil {
				t.Fatalf("%s\n: %v", stmt, err)
			}
		}
	}
	got, err := s.SquareCounts(ctx, 8)
	if err != nil || !slices.Equal(got.All, want.All) || !slices.Equal(got.Unique, want.Unique) {
		t.Errorf("after the backfill of docs/schema.md: %+v, %v; want %+v", got, err, want)
	}
}
