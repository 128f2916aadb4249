package graph_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/storetest"
)

// squareTables tallies the queens of every solution of N, and of the
// canonical ones, from the solver's enumeration.
func squareTables(n int) (all, unique [][]string) {
	a, u := make([]uint64, n*n), make([]uint64, n*n)
	for p := range solver.All(n) {
		canonical := solver.Canonical(p).Compare(p) == 0
		for r, c := range p {
			a[r*n+c]++
			if canonical {
				u[r*n+c]++
			}
		}
	}
	table := func(counts []uint64) [][]string {
		out := make([][]string, n)
		for r := range out {
			for c := range n {
				out[r] = append(out[r], strconv.FormatUint(counts[r*n+c], 10))
			}
		}
		return out
	}
	return table(a), table(u)
}

type squareCountsAnswer struct {
	State              string
	SquareCounts       [][]string
	UniqueSquareCounts [][]string
}

// TestSquareCountsThroughServer asks the real server over both stores for
// the statistics of done boards (N=1..9), which equal the solver's, and of
// a running one and a board never computed (null).
func TestSquareCountsThroughServer(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		for n := 1; n <= 9; n++ {
			fill(t, st, n, nil)
		}
		// N=10 running: one of its chunks written.
		if _, _, err := storetest.WritesOf(t, st).PlanBoard(context.Background(), store.BoardPlan{N: 10, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "graph-test"}); err != nil {
			t.Fatal(err)
		}
		if _, err := storetest.WritesOf(t, st).WriteChunk(context.Background(), store.ChunkWrite{Chunk: solver.Chunk{N: 10, Prefix: solver.Placement{0}}, Solutions: solver.Chunk{N: 10, Prefix: solver.Placement{0}}.Solutions()}); err != nil {
			t.Fatal(err)
		}
		b := serve(t, st)
		const q = `query ($n: Int!) { board(n: $n) { state squareCounts uniqueSquareCounts } }`
		for n := 1; n <= 9; n++ {
			var data struct{ Board squareCountsAnswer }
			b.Query(t, q, map[string]any{"n": n}, &data)
			all, unique := squareTables(n)
			if data.Board.State != "DONE" || !equalTables(data.Board.SquareCounts, all) || !equalTables(data.Board.UniqueSquareCounts, unique) {
				t.Errorf("N=%d: %+v; want squareCounts %v and uniqueSquareCounts %v", n, data.Board, all, unique)
			}
			// count's statistics: the board's without a filter, the
			// solver's tally of the matching solutions with one (a
			// queen pinned where the first solution has it).
			filters := []solver.Filter{{}}
			if sols := collectAll(n); len(sols) > 0 {
				filters = append(filters, solver.Filter{Queens: []solver.Square{{Row: n / 2, Col: sols[0][n/2]}}})
			}
			for _, f := range filters {
				var count struct{ Count squareCountsAnswer }
				b.Query(t, `query ($n: Int!, $where: SolutionFilter) { count(n: $n, where: $where) { squareCounts uniqueSquareCounts } }`,
					map[string]any{"n": n, "where": whereOf(f)}, &count)
				all, unique := squareTally(n, matchingListing(n, f, false)), squareTally(n, matchingListing(n, f, true))
				if !equalTables(count.Count.SquareCounts, all) || !equalTables(count.Count.UniqueSquareCounts, unique) {
					t.Errorf("N=%d count where %q: %+v; want squareCounts %v and uniqueSquareCounts %v", n, f, count.Count, all, unique)
				}
			}
		}
		for _, n := range []int{10, 11} {
			var data struct{ Board squareCountsAnswer }
			b.Query(t, q, map[string]any{"n": n}, &data)
			if data.Board.SquareCounts != nil || data.Board.UniqueSquareCounts != nil {
				t.Errorf("N=%d (%s): %+v; want null statistics", n, data.Board.State, data.Board)
			}
		}
		// Every board at once: the done ones have them.
		var boards struct{ Boards []squareCountsAnswer }
		b.Query(t, `{ boards { state squareCounts uniqueSquareCounts } }`, nil, &boards)
		for i, got := range boards.Boards {
			if (got.State == "DONE") != (got.SquareCounts != nil && got.UniqueSquareCounts != nil) {
				t.Errorf("boards[%d]: %+v", i, got)
			}
		}
	})
}

// TestSquareCountsWithoutStore: a server without a store knows no
// statistics.
func TestSquareCountsWithoutStore(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	var data struct{ Board squareCountsAnswer }
	b.Query(t, `{ board(n: 8) { state squareCounts uniqueSquareCounts } }`, nil, &data)
	if data.Board.State != "UNKNOWN" || data.Board.SquareCounts != nil || data.Board.UniqueSquareCounts != nil {
		t.Errorf("board 8 without a store: %+v; want UNKNOWN, null statistics", data.Board)
	}
}

func equalTables(a, b [][]string) bool { return slices.EqualFunc(a, b, slices.Equal) }
