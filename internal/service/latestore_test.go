package service

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestLateStore: before its store is set, every call of a lateStore fails
// with EUNAVAILABLE; then each goes to the store set (a SQLite file with
// N=6 stored and N=5 asked for) and answers as that store does; closing it
// leaves that store open for whoever opened it.
func TestLateStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	type answer struct {
		Value any
		Flag  bool // RequestBoard's created, PlanBoard's claimed, WriteChunk's lastChunk
	}
	// Each method once, with arguments that tell it from the methods of
	// the same signature (Board and FinishBoard differ on pending N=5).
	calls := func(s store.Store) map[string]func() (answer, error) {
		return map[string]func() (answer, error){
			"Board":   func() (answer, error) { b, err := s.Board(ctx, 5); return answer{Value: b}, err },
			"Boards":  func() (answer, error) { b, err := s.Boards(ctx); return answer{Value: b}, err },
			"Chunks":  func() (answer, error) { c, err := s.Chunks(ctx, 6); return answer{Value: c}, err },
			"Workers": func() (answer, error) { w, err := s.Workers(ctx); return answer{Value: w}, err },
			"Page": func() (answer, error) {
				p, err := s.Page(ctx, store.PageRequest{N: 6, Limit: 3})
				return answer{Value: p}, err
			},
			"SolutionAt": func() (answer, error) { p, err := s.SolutionAt(ctx, 6, 2, false); return answer{Value: p}, err },
			"Rank": func() (answer, error) {
				r, err := s.Rank(ctx, 6, solver.Placement{4, 2, 0, 5, 3, 1}, false)
				return answer{Value: r}, err
			},
			"SquareCounts": func() (answer, error) { c, err := s.SquareCounts(ctx, 6); return answer{Value: c}, err },
			"CountSolutions": func() (answer, error) {
				k, err := s.CountSolutions(ctx, store.CountRequest{N: 6, Filter: solver.Filter{Queens: []solver.Square{{Row: 0, Col: 1}}}})
				return answer{Value: k}, err
			},
			"Walk": func() (answer, error) {
				var keys [][]byte
				err := s.Walk(ctx, store.WalkRequest{N: 6}, func(p []byte) error {
					keys = append(keys, bytes.Clone(p))
					return nil
				})
				return answer{Value: keys}, err
			},
			"Ping": func() (answer, error) { return answer{}, s.Ping(ctx) },
			// A refused request and calls on a count never asked for:
			// they change nothing, so both paths answer the same.
			"RequestFilteredCount": func() (answer, error) {
				c, created, err := s.RequestFilteredCount(ctx, store.FilteredCountRequest{N: 6, Filter: "q0.1"}, nil)
				return answer{c, created}, err
			},
			"WriteFilteredChunk": func() (answer, error) {
				c, err := s.WriteFilteredChunk(ctx, store.FilteredChunkWrite{N: 6, Filter: "q0.1"}, nil)
				return answer{Value: c}, err
			},
			"FailFilteredCount": func() (answer, error) {
				c, err := s.FailFilteredCount(ctx, 6, "q0.1", "a test")
				return answer{Value: c}, err
			},
			"FilteredCount": func() (answer, error) { c, err := s.FilteredCount(ctx, 6, "q0.1"); return answer{Value: c}, err },
			"RequestBoard": func() (answer, error) {
				b, created, err := s.RequestBoard(ctx, store.BoardRequest{N: 6})
				return answer{b, created}, err
			},
			"PlanBoard": func() (answer, error) {
				b, claimed, err := s.PlanBoard(ctx, store.BoardPlan{N: 6, ChunkDepth: 1, StoresSolutions: true, SolverVersion: storetest.SolverVersion}, nil)
				return answer{b, claimed}, err
			},
			"WriteChunk": func() (answer, error) {
				last, err := s.WriteChunk(ctx, store.ChunkWrite{}, nil)
				return answer{Flag: last}, err
			},
			"TouchBoard":   func() (answer, error) { return answer{}, s.TouchBoard(ctx, 6) },
			"FinishBoard":  func() (answer, error) { b, err := s.FinishBoard(ctx, 5); return answer{Value: b}, err },
			"FailBoard":    func() (answer, error) { b, err := s.FailBoard(ctx, 6, "a test"); return answer{Value: b}, err },
			"SeeWorker":    func() (answer, error) { return answer{}, s.SeeWorker(ctx, "late-test") },
			"ForgetWorker": func() (answer, error) { return answer{}, s.ForgetWorker(ctx, "late-test") },
		}
	}
	var l lateStore
	if n, want := len(calls(&l)), reflect.TypeFor[store.Store]().NumMethod()-1; n != want { // all but Close
		t.Fatalf("the test calls %d methods of store.Store's %d", n, want)
	}
	for name, call := range calls(&l) {
		if _, err := call(); nqueens.ErrorCode(err) != nqueens.EUNAVAILABLE {
			t.Errorf("%s before the store is set: %v; want EUNAVAILABLE", name, err)
		}
	}

	st := sqlitetest.OpenTemp(t)
	storetest.Load(ctx, t, st, 6, 1)
	if _, _, err := st.RequestBoard(ctx, store.BoardRequest{N: 5}); err != nil {
		t.Fatal(err)
	}
	l.set(st)
	late, direct := calls(&l), calls(st)
	// Through the late store, then straight, the same answer: none of
	// these calls changes what the next one answers.
	for _, name := range []string{"Board", "Boards", "Chunks", "Workers", "Page", "SolutionAt", "Rank", "Ping",
		"RequestBoard", "PlanBoard", "WriteChunk", "TouchBoard", "FinishBoard", "FailBoard",
		"RequestFilteredCount", "WriteFilteredChunk", "FailFilteredCount", "FilteredCount"} {
		got, gotErr := late[name]()
		want, wantErr := direct[name]()
		if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s through the late store: %+v, %v; the store answers %+v, %v", name, got, gotErr, want, wantErr)
		}
	}
	// The worker calls, seen in the store's workers table.
	seen := func() bool {
		ws, err := st.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(ws, func(w store.Worker) bool { return w.ID == "late-test" })
	}
	if _, err := late["SeeWorker"](); err != nil || !seen() {
		t.Errorf("SeeWorker through the late store: %v; the worker is in the table: %t", err, seen())
	}
	if _, err := late["ForgetWorker"](); err != nil || seen() {
		t.Errorf("ForgetWorker through the late store: %v; the worker is in the table: %t", err, seen())
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); err != nil {
		t.Errorf("the store after the late store's Close: %v; want it open", err)
	}
}
