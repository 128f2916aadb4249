package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// maxRoundTripN is the largest board the page tests store: every page
// walk of N=1..10 stays fast on both backends.
const maxRoundTripN = 10

// pageSizes are the page sizes walked: single steps, an odd size that
// straddles chunk borders, and one page larger than most boards.
var pageSizes = []int{1, 7, 100}

// testRoundTripPages stores N=1..10 from the solver, checks each board's
// counts against the published ones, and walks every board forward and
// backward at several page sizes, all and unique solutions: each page must
// equal the solver's page from the same cursor, and each walk the solver's
// ordered enumeration.
func testRoundTripPages[TTx any](t *testing.T, b *bundle[TTx]) {
	ref := oeis.MustLoad(t)
	LoadRange(b.ctx, t, b.store, 1, maxRoundTripN)
	for n := 1; n <= maxRoundTripN; n++ {
		board, err := b.store.Board(b.ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		checkBoardCounts(t, board, ref[n])
		for _, unique := range []bool{false, true} {
			want := enumerate(n, unique)
			for _, size := range pageSizes {
				for _, dir := range []store.Direction{store.Forward, store.Backward} {
					name := fmt.Sprintf("N=%d unique=%t size=%d %s", n, unique, size, dirName(dir))
					if got := walk(t, b, n, unique, size, dir); !samePlacements(got, want) {
						t.Errorf("%s: walked %d solutions, want the solver's %d\n got %v\nwant %v", name, len(got), len(want), got, want)
					}
				}
			}
		}
	}
}

// checkBoardCounts compares a done board with its published counts.
func checkBoardCounts(t *testing.T, b store.Board, ref oeis.Row) {
	t.Helper()
	want := solver.Counts{Total: ref.Total, Unique: ref.Unique, Orbit1: ref.OrbitOfSingle, Orbit2: ref.Orbit2, Orbit4: ref.Orbit4, Orbit8: ref.Orbit8}
	if b.State != store.Done || b.Counts == nil || *b.Counts != want {
		t.Errorf("N=%d: state %s, counts %+v; want done with %+v", b.N, b.State, b.Counts, want)
	}
	if b.ChunksDone != b.ChunksTotal || b.SolutionsDone != want.Total {
		t.Errorf("N=%d: progress %d/%d chunks, %d solutions; want all chunks and %d solutions", b.N, b.ChunksDone, b.ChunksTotal, b.SolutionsDone, want.Total)
	}
}

func dirName(d store.Direction) string {
	if d == store.Backward {
		return "backward"
	}
	return "forward"
}

// enumerate is the solver's ordered list of all or canonical solutions.
func enumerate(n int, unique bool) []solver.Placement {
	seq := solver.All(n)
	if unique {
		seq = solver.AllUnique(n)
	}
	var out []solver.Placement
	for p := range seq {
		out = append(out, p.Clone())
	}
	return out
}

// solverPage is the page the solver gives for the same request.
func solverPage(t *testing.T, req store.PageRequest) []solver.Placement {
	t.Helper()
	page, err := solver.Page(context.Background(), solver.PageQuery{
		N: req.N, Cursor: req.Cursor, Limit: req.Limit, Backward: req.Direction == store.Backward, Unique: req.Unique,
	})
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// walk pages through all (or all canonical) solutions of N in one
// direction, checking every page against the solver's, and returns them
// in ascending order.
func walk[TTx any](t *testing.T, b *bundle[TTx], n int, unique bool, size int, dir store.Direction) []solver.Placement {
	t.Helper()
	var all [][]solver.Placement
	req := store.PageRequest{N: n, Unique: unique, Direction: dir, Limit: size}
	for range 100_000 {
		page := getPage(t, b, req)
		if want := solverPage(t, req); !samePlacements(page, want) {
			t.Fatalf("page %+v = %v, the solver's is %v", req, page, want)
		}
		if len(page) == 0 {
			break
		}
		all = append(all, page)
		if dir == store.Forward {
			req.Cursor = page[len(page)-1]
		} else {
			req.Cursor = page[0]
		}
	}
	if dir == store.Backward {
		slices.Reverse(all)
	}
	return slices.Concat(all...)
}

// getPage reads a page and checks every solution's symmetry facts against
// the solver's.
func getPage[TTx any](t *testing.T, b *bundle[TTx], req store.PageRequest) []solver.Placement {
	t.Helper()
	page, err := b.store.Page(b.ctx, req)
	if err != nil {
		t.Fatalf("Page(%+v): %v", req, err)
	}
	out := make([]solver.Placement, len(page))
	for i, s := range page {
		checkSolution(t, s, req.N)
		out[i] = s.Placement
	}
	return out
}

// checkSolution checks a stored solution against the solver.
func checkSolution(t *testing.T, s store.Solution, n int) {
	t.Helper()
	if s.N != n || solver.ValidateN(n, s.Placement) != nil ||
		s.Canonical != solver.IsCanonical(s.Placement) || s.OrbitSize != solver.OrbitSize(s.Placement) {
		t.Fatalf("stored solution %+v disagrees with the solver: N=%d valid=%v canonical=%t orbit=%d", s, n,
			solver.ValidateN(n, s.Placement), solver.IsCanonical(s.Placement), solver.OrbitSize(s.Placement))
	}
}

func samePlacements(a, b []solver.Placement) bool {
	return slices.EqualFunc(a, b, func(p, q solver.Placement) bool { return p.Compare(q) == 0 })
}

// testPagesFromAnyCursor checks pages after and before cursors that are
// not solutions (any placement of N is a valid cursor) against the solver.
func testPagesFromAnyCursor[TTx any](t *testing.T, b *bundle[TTx]) {
	const n = 9
	LoadRange(b.ctx, t, b.store, n, n)
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200 {
		cursor := make(solver.Placement, n)
		for r := range cursor {
			cursor[r] = rng.IntN(n)
		}
		for _, unique := range []bool{false, true} {
			for _, dir := range []store.Direction{store.Forward, store.Backward} {
				req := store.PageRequest{N: n, Unique: unique, Direction: dir, Cursor: cursor, Limit: 1 + rng.IntN(20)}
				if got, want := getPage(t, b, req), solverPage(t, req); !samePlacements(got, want) {
					t.Fatalf("page %+v = %v, the solver's is %v", req, got, want)
				}
			}
		}
	}
	// Past either end: an empty page, not an error.
	last := enumerate(n, false)
	for _, req := range []store.PageRequest{
		{N: n, Direction: store.Forward, Cursor: last[len(last)-1], Limit: 5},
		{N: n, Direction: store.Backward, Cursor: last[0], Limit: 5},
		{N: n, Direction: store.Forward, Limit: 0},
	} {
		if got := getPage(t, b, req); len(got) != 0 {
			t.Errorf("page %+v = %v, want none", req, got)
		}
	}
}

// testConcurrentPages reads pages from many goroutines at once, as a busy
// API does (the Postgres store then sends the queries waiting together as
// one batch): each caller gets its own page, equal to the solver's, and a
// caller that gives up does not disturb the others.
func testConcurrentPages[TTx any](t *testing.T, b *bundle[TTx]) {
	const n, callers, pages = 9, 32, 40
	LoadRange(b.ctx, t, b.store, n, n)
	rng := rand.New(rand.NewPCG(9, 32))
	type call struct {
		req  store.PageRequest
		want []solver.Placement
	}
	calls := make([][]call, callers)
	for i := range calls {
		for range pages {
			cursor := make(solver.Placement, n)
			for r := range cursor {
				cursor[r] = rng.IntN(n)
			}
			req := store.PageRequest{N: n, Unique: rng.IntN(2) == 0, Direction: store.Direction(rng.IntN(2)), Cursor: cursor, Limit: 1 + rng.IntN(30)}
			calls[i] = append(calls[i], call{req, solverPage(t, req)})
		}
	}
	var wg sync.WaitGroup
	for i, mine := range calls {
		wg.Go(func() {
			for j, c := range mine {
				ctx := b.ctx
				if (i+j)%7 == 0 {
					// A caller that has already given up.
					cancelled, cancel := context.WithCancel(b.ctx)
					cancel()
					ctx = cancelled
				}
				page, err := b.store.Page(ctx, c.req)
				if ctx != b.ctx {
					if err == nil && !samePlacements(placements(page), c.want) {
						t.Errorf("page %+v (cancelled) = %v, the solver's is %v", c.req, placements(page), c.want)
					}
					continue
				}
				if err != nil {
					t.Errorf("Page(%+v): %v", c.req, err)
					return
				}
				if got := placements(page); !samePlacements(got, c.want) {
					t.Errorf("page %+v = %v, the solver's is %v", c.req, got, c.want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func placements(page []store.Solution) []solver.Placement {
	out := make([]solver.Placement, len(page))
	for i, s := range page {
		out[i] = s.Placement
	}
	return out
}
