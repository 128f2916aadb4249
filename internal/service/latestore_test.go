package service

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestLateStore: before its store is set, every read of a lateStore fails
// with EUNAVAILABLE; then each goes to the store set (a SQLite file with
// N=6 stored and N=5 asked for) and answers as that store does.
func TestLateStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	counted := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 1}}}
	// Each method once, with arguments that tell it from the methods of
	// the same signature.
	calls := func(s store.Reader) map[string]func() (any, error) {
		return map[string]func() (any, error){
			"Board":  func() (any, error) { return s.Board(ctx, 5) },
			"Boards": func() (any, error) { return s.Boards(ctx, store.Done) },
			"Page":   func() (any, error) { return s.Page(ctx, store.PageRequest{N: 6, Limit: 3}) },
			"SolutionAt": func() (any, error) {
				return s.SolutionAt(ctx, 6, 2, false)
			},
			"Rank": func() (any, error) {
				return s.Rank(ctx, 6, solver.Placement{4, 2, 0, 5, 3, 1}, false)
			},
			"SquareCounts": func() (any, error) { return s.SquareCounts(ctx, 6) },
			"Walk": func() (any, error) {
				var keys [][]byte
				err := s.Walk(ctx, store.WalkRequest{N: 6, Filter: counted}, func(p []byte) error {
					keys = append(keys, bytes.Clone(p))
					return nil
				})
				return keys, err
			},
			"FilteredCount": func() (any, error) { return s.FilteredCount(ctx, 6, counted) },
			"FilteredCountChunks": func() (any, error) {
				return s.FilteredCountChunks(ctx, 6, counted)
			},
			"Ping": func() (any, error) { return nil, s.Ping(ctx) },
		}
	}
	var l lateStore
	if n, want := len(calls(&l)), reflect.TypeFor[store.Reader]().NumMethod(); n != want {
		t.Fatalf("the test calls %d methods of store.Reader's %d", n, want)
	}
	for name, call := range calls(&l) {
		if _, err := call(); nqueens.ErrorCode(err) != nqueens.EUNAVAILABLE {
			t.Errorf("%s before the store is set: %v; want EUNAVAILABLE", name, err)
		}
	}

	st := sqlitetest.OpenTemp(t)
	storetest.Load(ctx, t, st, 6, 1)
	storetest.LoadFilteredCount(ctx, t, st, 6, counted)
	if _, _, err := st.RequestBoard(ctx, store.BoardRequest{N: 5}); err != nil {
		t.Fatal(err)
	}
	l.set(st)
	late, direct := calls(&l), calls(st)
	for name := range late {
		got, gotErr := late[name]()
		want, wantErr := direct[name]()
		if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s through the late store: %+v, %v; the store answers %+v, %v", name, got, gotErr, want, wantErr)
		}
	}
}
