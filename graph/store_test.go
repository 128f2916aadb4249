package graph_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// These tests run the real server (httptest, real handler, real HTTP and
// websockets) over a real store on both backends, plugged in as nqueens
// serve plugs it in (the store is the resolvers' BoardReader and
// Listing as it is): Postgres (a schema of
// the test's own on NQUEENS_TEST_DATABASE_URL) and SQLite (a file in the
// test's temporary directory). Boards are filled through the store the way
// a worker fills them: PlanBoard, WriteChunk for every chunk of
// solver.Chunks, FinishBoard when a write reports the last chunk.

// database is one test's empty database on one backend.
type database struct {
	backend string
	// open opens another store over the same database (as another
	// process would), closed when the test ends.
	open func(t *testing.T) store.ReadCloser
}

type backend struct {
	name string
	new  func(t *testing.T) database
}

var backends = []backend{
	{"postgres", func(t *testing.T) database {
		u, _ := pgtest.Schema(t)
		return database{backend: "postgres", open: func(t *testing.T) store.ReadCloser { return pgtest.Open(t, u) }}
	}},
	{"sqlite", func(t *testing.T) database {
		path := filepath.Join(t.TempDir(), "nqueens.db")
		return database{backend: "sqlite", open: func(t *testing.T) store.ReadCloser { return sqlitetest.Open(t, path) }}
	}},
}

// eachBackend runs test on both backends, in parallel.
func eachBackend(t *testing.T, test func(t *testing.T, db database)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b.new(t))
		})
	}
}

// fill computes board N into st as a worker does, calling between (if
// not nil) after each chunk.
func fill(t testing.TB, st store.ReadCloser, n int, between func(done, total int)) {
	t.Helper()
	ctx := context.Background()
	depth := solver.DefaultChunkDepth(n)
	plan := store.BoardPlan{N: n, ChunkDepth: depth, StoresSolutions: true, SolverVersion: "graph-test"}
	if _, _, err := storetest.WritesOf(t, st).PlanBoard(ctx, plan); err != nil {
		t.Fatalf("PlanBoard(%+v): %v", plan, err)
	}
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		t.Fatal(err)
	}
	finished := false
	for i, c := range chunks {
		last, err := storetest.WritesOf(t, st).WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()})
		if err != nil {
			t.Fatalf("WriteChunk(%v): %v", c, err)
		}
		if last {
			if _, err := storetest.WritesOf(t, st).FinishBoard(ctx, n); err != nil {
				t.Fatalf("FinishBoard(%d): %v", n, err)
			}
			finished = true
		}
		if between != nil {
			between(i+1, len(chunks))
		}
	}
	if !finished {
		t.Fatalf("N=%d: no chunk write reported the last chunk", n)
	}
}

// serve starts the real server over st, as nqueens serve does.
func serve(t *testing.T, st store.ReadCloser, opts ...func(*server.Config)) *apitest.Bundle {
	t.Helper()
	withStore := func(c *server.Config) { c.Graph.Boards, c.Graph.Stored = st, st }
	return apitest.Setup(t, append([]func(*server.Config){withStore}, opts...)...)
}

// TestStoredPagesEqualSolverPages pages N=8..10 from the store (boards
// filled) and from the solver (a server over an empty database of the
// same backend), all and unique, forward and backward, in several page
// sizes, and windows bounded on both sides: every answer is the same,
// cursors included, except the source. Both servers are driven with the
// store server's cursors, so the solver server takes cursors the store
// handed out.
func TestStoredPagesEqualSolverPages(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		full := db.open(t)
		for n := 8; n <= 10; n++ {
			fill(t, full, n, nil)
		}
		stored := serve(t, full)
		fromSolver := serve(t, backends[backendIndex(db.backend)].new(t).open(t))
		ref := oeis.MustLoad(t)
		for n := 8; n <= 10; n++ {
			for _, field := range []string{"solutions", "uniqueSolutions"} {
				total := ref[n].Total
				if field == "uniqueSolutions" {
					total = ref[n].Unique
				}
				for _, k := range []int{1, 7, 50, 1000} {
					if k == 1 && n > 8 {
						continue // N=8 in pages of 1 is enough of that
					}
					samePages(t, stored, fromSolver, field, n, k, total, "first", "after")
					samePages(t, stored, fromSolver, field, n, k, total, "last", "before")
				}
				sameWindows(t, stored, fromSolver, field, n)
			}
		}
	})
}

func backendIndex(name string) int {
	for i, b := range backends {
		if b.name == name {
			return i
		}
	}
	panic(name)
}

// samePages walks a whole listing with size (first or last) k, moving by
// the store server's cursors, and compares every page of both servers.
func samePages(t *testing.T, stored, fromSolver *apitest.Bundle, field string, n, k int, total uint64, size, bound string) {
	t.Helper()
	args := map[string]any{size: k}
	seen := 0
	for i := 0; ; i++ {
		a := stored.Page(t, field, n, args)
		b := fromSolver.Page(t, field, n, args)
		if a.Source != "STORE" || b.Source != "SOLVER" {
			t.Fatalf("%s(n: %d) %v: sources %s and %s, want STORE and SOLVER", field, n, args, a.Source, b.Source)
		}
		if apitest.Uint64(t, a.TotalCount) != total {
			t.Fatalf("%s(n: %d): totalCount %s, want %d", field, n, *a.TotalCount, total)
		}
		a.Source, b.Source = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s(n: %d) %v: page %d differs:\nstore  %+v\nsolver %+v", field, n, args, i, a, b)
		}
		seen += len(a.Edges)
		more := a.PageInfo.HasNextPage
		next := a.PageInfo.EndCursor
		if size == "last" {
			more, next = a.PageInfo.HasPreviousPage, a.PageInfo.StartCursor
		}
		if !more {
			break
		}
		args[bound] = *next
	}
	if uint64(seen) != total {
		t.Fatalf("%s(n: %d) by %s %d: %d items, want %d", field, n, size, k, seen, total)
	}
}

// sameWindows compares windows bounded by both after and before (a page
// between two cursors), forward and backward, on both servers.
func sameWindows(t *testing.T, stored, fromSolver *apitest.Bundle, field string, n int) {
	t.Helper()
	all := stored.Page(t, field, n, map[string]any{"first": 1000})
	m := len(all.Edges)
	for _, w := range [][2]int{{0, m - 1}, {1, 5}, {m / 3, m / 2}, {m / 2, m/2 + 1}, {m - 4, m - 1}} {
		for _, k := range []int{2, 10} {
			for _, size := range []string{"first", "last"} {
				args := map[string]any{size: k, "after": all.Edges[w[0]].Cursor, "before": all.Edges[w[1]].Cursor}
				a := stored.Page(t, field, n, args)
				b := fromSolver.Page(t, field, n, args)
				wantLen := min(k, w[1]-w[0]-1)
				if len(a.Edges) != wantLen {
					t.Fatalf("%s(n: %d) window %v %s %d: %d edges, want %d", field, n, w, size, k, len(a.Edges), wantLen)
				}
				a.Source, b.Source = "", ""
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s(n: %d) window %v: differs:\nstore  %+v\nsolver %+v", field, n, args, a, b)
				}
			}
		}
	}
}

// The N=8 scenarios of graph's tests, from the store.

func TestPageAllSolutionsOfN8FromStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		fill(t, st, 8, nil)
		apitest.CheckPageAllN8(t, serve(t, st), "STORE")
	})
}

func TestUniqueSolutionsOfN8FromStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		fill(t, st, 8, nil)
		apitest.CheckUniqueN8(t, serve(t, st), "STORE")
	})
}

func TestSolutionAtAgreesWithPagingFromStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		fill(t, st, 8, nil)
		b := serve(t, st, func(c *server.Config) { c.Graph.RankWalkMaxN = 0 }) // never walk: ranks from the store only
		apitest.CheckSolutionAtN8(t, b)
	})
}

// TestCountsAndStatesFromStore: count and board answer from the per-N row
// first: a done board with solutions, a done board that keeps counts only
// (no solution rows at all, so its totalCount can only come from the row,
// and its pages from the solver), a board the store does not know, and
// one above the on-the-spot counting limit.
func TestCountsAndStatesFromStore(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		ctx := context.Background()
		st := db.open(t)
		fill(t, st, 6, nil)
		// N=9 counts only: chunks written with their counts, no solutions.
		plan := store.BoardPlan{N: 9, ChunkDepth: 2, SolverVersion: "graph-test"}
		if _, _, err := storetest.WritesOf(t, st).PlanBoard(ctx, plan); err != nil {
			t.Fatal(err)
		}
		chunks, _ := solver.Chunks(9, 2)
		for _, c := range chunks {
			last, err := storetest.WritesOf(t, st).WriteChunk(ctx, store.ChunkWrite{Chunk: c, Counts: c.Count()})
			if err != nil {
				t.Fatal(err)
			}
			if last {
				if _, err := storetest.WritesOf(t, st).FinishBoard(ctx, 9); err != nil {
					t.Fatal(err)
				}
			}
		}
		b := serve(t, st, func(c *server.Config) { c.Graph.CountMaxN = 5 })
		ref := oeis.MustLoad(t)
		type count struct {
			Total, Unique *string
			Source        *string
			State         string
			Board         struct {
				State, PagesSource string
				StoresSolutions    bool
				Progress           struct{ Fraction float64 }
			}
		}
		var data map[string]count
		q := `{ %s }`
		var parts []string
		for _, n := range []int{6, 9, 10, 4} {
			parts = append(parts, fmt.Sprintf(`c%d: count(n: %d) { total unique source state board { state pagesSource storesSolutions progress { fraction } } }`, n, n))
		}
		b.Query(t, fmt.Sprintf(q, strings.Join(parts, " ")), nil, &data)
		for _, tt := range []struct {
			n                      int
			known                  bool
			source, state, pagesFr string
			stores                 bool
		}{
			{6, true, "STORE", "DONE", "STORE", true},
			{9, true, "STORE", "DONE", "SOLVER", false},
			{10, false, "", "UNKNOWN", "SOLVER", false}, // above CountMaxN 5 and not stored
			{4, true, "SOLVER", "UNKNOWN", "SOLVER", false},
		} {
			c := data["c"+strconv.Itoa(tt.n)]
			if tt.known != (c.Total != nil) || c.State != tt.state || c.Board.State != tt.state ||
				c.Board.PagesSource != tt.pagesFr || c.Board.StoresSolutions != tt.stores {
				t.Errorf("count(n: %d) = %+v; want known %v, state %s, pages from %s", tt.n, c, tt.known, tt.state, tt.pagesFr)
				continue
			}
			if tt.known && (apitest.Uint64(t, c.Total) != ref[tt.n].Total || apitest.Uint64(t, c.Unique) != ref[tt.n].Unique || *c.Source != tt.source) {
				t.Errorf("count(n: %d) = %s/%s from %s; want %d/%d from %s", tt.n, *c.Total, *c.Unique, *c.Source, ref[tt.n].Total, ref[tt.n].Unique, tt.source)
			}
		}
		// The counts-only board pages from the solver with the row's total.
		c := b.Page(t, "uniqueSolutions", 9, map[string]any{"first": 5})
		if c.Source != "SOLVER" || apitest.Uint64(t, c.TotalCount) != ref[9].Unique || len(c.Edges) != 5 {
			t.Errorf("uniqueSolutions(n: 9) of a counts-only board: %+v", c)
		}
		var boards struct {
			Boards []struct {
				N     int
				State string
			}
		}
		b.Query(t, `{ boards(state: DONE) { n state } }`, nil, &boards)
		if len(boards.Boards) != 2 || boards.Boards[0].N != 6 || boards.Boards[1].N != 9 {
			t.Errorf("boards(state: DONE) = %+v, want N=6 and N=9", boards.Boards)
		}
	})
}

// TestBoardProgressSubscription subscribes to boardProgress(n: 10) over a
// real websocket (graphql-transport-ws) while a writer fills the board
// chunk by chunk through another store over the same database, as a
// worker process would: the server learns of the progress only from the
// database, the board's start by its sweep of the boards nobody computes,
// then its progress by polling it. The subscriber sees the board go from
// UNKNOWN through RUNNING, its progress rising, to DONE with the right
// counts, and then the subscription completes.
func TestBoardProgressSubscription(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		b := serve(t, db.open(t), func(c *server.Config) {
			c.Graph.PollInterval = 10 * time.Millisecond
			c.Graph.SweepInterval = 10 * time.Millisecond
			c.Graph.CountMaxN = 0 // no counts on the spot: the total comes from the store when done
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		sub := b.Subscribe(t, ctx, `subscription($n: Int!) { boardProgress(n: $n) {
			n state total unique progress { fraction chunksDone chunksTotal solutionsFound } } }`, map[string]any{"n": 10})
		type progress struct {
			BoardProgress struct {
				N             int
				State         string
				Total, Unique *string
				Progress      struct {
					Fraction                float64
					ChunksDone, ChunksTotal int
					SolutionsFound          string
				}
			}
		}
		var first progress
		if !sub.Next(t, &first) || first.BoardProgress.State != "UNKNOWN" || first.BoardProgress.Progress.Fraction != 0 {
			t.Fatalf("first message: %+v", first)
		}

		// The writer waits, after each chunk but the last, until the
		// subscriber has seen it (a subscriber gets the latest state, and
		// a busy machine may read the board less often than chunks come),
		// so that each step of the progress is seen.
		writer := db.open(t) // another store over the same database: another process
		var chunksSeen atomic.Int64
		errc := make(chan error, 1)
		go func() {
			defer close(errc)
			defer func() {
				if p := recover(); p != nil {
					errc <- fmt.Errorf("writer: %v", p)
				}
			}()
			fill(&panicTB{TB: t}, writer, 10, func(done, total int) {
				for deadline := time.Now().Add(20 * time.Second); done < total && chunksSeen.Load() < int64(done); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						panic(fmt.Sprintf("the subscriber did not see chunk %d of %d within 20 s", done, total))
					}
				}
			})
		}()

		var seen []progress
		for {
			var m progress
			if !sub.Next(t, &m) {
				break
			}
			seen = append(seen, m)
			chunksSeen.Store(int64(m.BoardProgress.Progress.ChunksDone))
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		ref := oeis.MustLoad(t)[10]
		if len(seen) == 0 {
			t.Fatal("no progress after the first message")
		}
		var running []float64
		prev := -1.0
		for i, m := range seen {
			p := m.BoardProgress
			if p.Progress.Fraction < prev {
				t.Fatalf("message %d: fraction fell from %v to %v", i, prev, p.Progress.Fraction)
			}
			prev = p.Progress.Fraction
			if p.State == "RUNNING" {
				running = append(running, p.Progress.Fraction)
				if p.Total != nil {
					t.Fatalf("message %d: a running board has a total: %+v", i, p)
				}
			}
		}
		last := seen[len(seen)-1].BoardProgress
		if last.State != "DONE" || last.Progress.Fraction != 1 || apitest.Uint64(t, last.Total) != ref.Total ||
			apitest.Uint64(t, last.Unique) != ref.Unique || last.Progress.SolutionsFound != strconv.FormatUint(ref.Total, 10) ||
			last.Progress.ChunksDone != last.Progress.ChunksTotal {
			t.Fatalf("last message: %+v", last)
		}
		distinct := map[float64]bool{}
		for _, f := range running {
			if f > 0 && f < 1 {
				distinct[f] = true
			}
		}
		if len(distinct) < 3 {
			t.Fatalf("saw %d distinct fractions between 0 and 1 while running (%v); want the progress to rise in steps", len(distinct), running)
		}
		t.Logf("%s: %d messages, %d while running", db.backend, len(seen), len(running))
	})
}

// panicTB turns a fatal error in a goroutine into a panic the goroutine
// recovers (t.Fatal must not be called outside the test's goroutine).
type panicTB struct{ testing.TB }

func (p *panicTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (p *panicTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (p *panicTB) Helper()                           {}

// TestBoardsByState asks the server for boards(state: …) over a store
// with a board in each state the store keeps: each state lists exactly
// its boards in ascending N (the store filters them in SQL), UNKNOWN the
// boards without a row, and no state all 32.
func TestBoardsByState(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		ctx := t.Context()
		w := storetest.WritesOf(t, st)
		fill(t, st, 5, nil)
		if _, _, err := w.RequestBoard(ctx, store.BoardRequest{N: 7}); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{8, 6} {
			if _, _, err := w.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: 1, StoresSolutions: true, SolverVersion: "graph-test"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.FailBoard(ctx, 6, "worker lost"); err != nil {
			t.Fatal(err)
		}
		b := serve(t, st)
		var unknown []int
		for n := 1; n <= solver.MaxSearchN; n++ {
			if n < 5 || n > 8 {
				unknown = append(unknown, n)
			}
		}
		for _, c := range []struct {
			args string
			want []int
		}{
			{`(state: DONE)`, []int{5}},
			{`(state: PENDING)`, []int{7}},
			{`(state: RUNNING)`, []int{8}},
			{`(state: FAILED)`, []int{6}},
			{`(state: UNKNOWN)`, unknown},
			{``, rangeN(1, solver.MaxSearchN)},
		} {
			var got struct {
				Boards []struct {
					N     int
					State string
				}
			}
			b.Query(t, `{ boards`+c.args+` { n state } }`, nil, &got)
			var ns []int
			for _, bd := range got.Boards {
				ns = append(ns, bd.N)
			}
			if !slices.Equal(ns, c.want) {
				t.Errorf("boards%s = N %v, want %v", c.args, ns, c.want)
			}
		}
	})
}

func rangeN(lo, hi int) []int {
	var out []int
	for n := lo; n <= hi; n++ {
		out = append(out, n)
	}
	return out
}
