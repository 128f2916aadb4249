package storetest

import (
	"strings"
	"testing"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/store"
)

// testRequestedBy: the request or plan that makes a board's row records
// who asked, and nothing after changes it (asking again, planning,
// failing, resuming, finishing); an unknown requester stays unknown.
// A name that is too long or not printable text is EINVALID and changes
// nothing, whether the board is new or not.
func testRequestedBy[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	requested := func(n int, want, when string) {
		t.Helper()
		got, err := s.Board(ctx, n)
		if err != nil || got.RequestedBy != want {
			t.Errorf("%s: Board(%d) requested by %q, %v; want %q", when, n, got.RequestedBy, err, want)
		}
	}

	// N=7: asked for by alice, then by bob, then planned, failed,
	// resumed and done.
	const name = "Alice Zoë <alice@example.com>" // not only ASCII
	pending, created, err := s.RequestBoard(ctx, store.BoardRequest{N: 7, RequestedBy: name})
	if err != nil || !created || pending.RequestedBy != name {
		t.Fatalf("RequestBoard(7) by %q: %+v, created %t, %v", name, pending, created, err)
	}
	again, created, err := s.RequestBoard(ctx, store.BoardRequest{N: 7, RequestedBy: "bob"})
	if err != nil || created || again.RequestedBy != name || !again.UpdatedAt.Equal(pending.UpdatedAt) {
		t.Errorf("RequestBoard(7) again by bob: %+v, created %t, %v; want the row unchanged", again, created, err)
	}
	plan := store.BoardPlan{N: 7, ChunkDepth: 1, StoresSolutions: true, SolverVersion: SolverVersion, RequestedBy: "carol"}
	running, claimed, err := s.PlanBoard(ctx, plan, nil)
	if err != nil || !claimed || running.RequestedBy != name {
		t.Fatalf("PlanBoard(7) by carol: %+v, claimed %t, %v; want %q kept", running, claimed, err, name)
	}
	if _, err := s.FailBoard(ctx, 7, "worker lost"); err != nil {
		t.Fatal(err)
	}
	resumed, _, err := s.PlanBoard(ctx, store.PlanOf(running, SolverVersion), nil)
	if err != nil || resumed.RequestedBy != name {
		t.Fatalf("PlanBoard(7) resumed: %+v, %v; want %q kept", resumed, err, name)
	}
	Load(ctx, t, s, 7, 1)
	requested(7, name, "N=7 done")

	// N=8: made by its plan, with no request before it.
	if b8, _, err := s.PlanBoard(ctx, store.BoardPlan{N: 8, ChunkDepth: 1, StoresSolutions: true, SolverVersion: SolverVersion, RequestedBy: "cron"}, nil); err != nil || b8.RequestedBy != "cron" {
		t.Fatalf("PlanBoard(8) of a new board by cron: %+v, %v", b8, err)
	}

	// N=9: asked for by nobody known; a later name does not fill it in.
	if b9, _, err := s.RequestBoard(ctx, store.BoardRequest{N: 9}); err != nil || b9.RequestedBy != "" {
		t.Fatalf("RequestBoard(9) by nobody: %+v, %v", b9, err)
	}
	if b9, created, err := s.RequestBoard(ctx, store.BoardRequest{N: 9, RequestedBy: "dave"}); err != nil || created || b9.RequestedBy != "" {
		t.Errorf("RequestBoard(9) again by dave: %+v, created %t, %v; want it still unknown", b9, created, err)
	}

	// N=10: the longest name allowed, in characters (2 bytes each).
	longest := strings.Repeat("é", store.MaxRequestedByLen)
	if b10, _, err := s.RequestBoard(ctx, store.BoardRequest{N: 10, RequestedBy: longest}); err != nil || b10.RequestedBy != longest {
		t.Errorf("RequestBoard(10) by %d characters: %q, %v", store.MaxRequestedByLen, b10.RequestedBy, err)
	}

	want := map[int]string{7: name, 8: "cron", 9: "", 10: longest}
	boards, err := s.Boards(ctx)
	if err != nil || len(boards) != len(want) {
		t.Fatalf("Boards: %d, %v; want %d", len(boards), err, len(want))
	}
	for _, bd := range boards {
		if bd.RequestedBy != want[bd.N] {
			t.Errorf("Boards: N=%d requested by %q, want %q", bd.N, bd.RequestedBy, want[bd.N])
		}
	}

	// Bad names: refused, on a new board (11) and on a pending one (9).
	before, err := s.Board(ctx, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Repeat("x", store.MaxRequestedByLen+1),
		"alice\nbob", "tab\there", "nul\x00", "\xff\xfe", "bell\a", "rtl\u202eoverride",
	} {
		for _, n := range []int{11, 9} {
			_, _, err := s.RequestBoard(ctx, store.BoardRequest{N: n, RequestedBy: bad})
			wantCode(t, err, nqueens.EINVALID, "RequestBoard by "+strings.ToValidUTF8(bad, "?"))
			_, _, err = s.PlanBoard(ctx, store.BoardPlan{N: n, ChunkDepth: 1, StoresSolutions: true, SolverVersion: SolverVersion, RequestedBy: bad}, nil)
			wantCode(t, err, nqueens.EINVALID, "PlanBoard by "+strings.ToValidUTF8(bad, "?"))
		}
	}
	_, err = s.Board(ctx, 11)
	wantCode(t, err, nqueens.ENOTFOUND, "Board(11) after refused requests")
	if after, err := s.Board(ctx, 9); err != nil || after.State != store.Pending || after.RequestedBy != "" || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("Board(9) after refused requests: %+v, %v; want it unchanged: %+v", after, err, before)
	}
}
