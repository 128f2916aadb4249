package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/store"
)

// testWorkers: heartbeats insert a worker, then refresh when it was last
// seen (not when it started); Unseen grows with the time since; a worker
// forgotten is gone; bad ids change nothing.
func testWorkers[TTx any](t *testing.T, b *bundle[TTx]) {
	ctx, s := b.ctx, b.store
	list := func() map[string]store.Worker {
		t.Helper()
		ws, err := s.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Worker{}
		for _, w := range ws {
			out[w.ID] = w
		}
		return out
	}
	if ws := list(); len(ws) != 0 {
		t.Fatalf("Workers of a new database: %v", ws)
	}
	for _, id := range []string{"host-1_42_a1", "host-2_7_b2"} {
		if err := s.SeeWorker(ctx, id); err != nil {
			t.Fatalf("SeeWorker(%q): %v", id, err)
		}
	}
	first := list()
	const pause = 300 * time.Millisecond
	time.Sleep(pause)
	if err := s.SeeWorker(ctx, "host-1_42_a1"); err != nil {
		t.Fatal(err)
	}
	ws := list()
	seen, unseen := ws["host-1_42_a1"], ws["host-2_7_b2"]
	if len(ws) != 2 || seen.StartedAt.IsZero() || !seen.StartedAt.Equal(first["host-1_42_a1"].StartedAt) {
		t.Errorf("Workers after two heartbeats of one and one of another: %+v; want both, each started at its first", ws)
	}
	if unseen.Unseen < pause || seen.Unseen >= unseen.Unseen || seen.Unseen < 0 {
		t.Errorf("unseen for %s and %s; want the one not seen since the pause unseen for longer than %s, the other less", seen.Unseen, unseen.Unseen, pause)
	}

	if err := s.ForgetWorker(ctx, "host-2_7_b2"); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetWorker(ctx, "never-seen"); err != nil {
		t.Errorf("ForgetWorker of an unknown worker: %v", err)
	}
	if ws := list(); len(ws) != 1 || ws["host-1_42_a1"].ID == "" {
		t.Errorf("Workers after forgetting one: %+v", ws)
	}

	for _, bad := range []string{"", strings.Repeat("x", store.MaxWorkerIDLen+1), "\xff"} {
		wantCode(t, s.SeeWorker(ctx, bad), nqueens.EINVALID, "SeeWorker of a bad id")
		wantCode(t, s.ForgetWorker(ctx, bad), nqueens.EINVALID, "ForgetWorker of a bad id")
	}
	if ws := list(); len(ws) != 1 {
		t.Errorf("bad ids changed the workers: %+v", ws)
	}
}
