package quota_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/quota"
)

func scopeOf(t *testing.T, err error) quota.Scope {
	t.Helper()
	var r *quota.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("error %v is not a *quota.Refusal", err)
	}
	return r.Scope
}

// TestShareBeforeTotal: a client stops at its share while another client
// still gets units, and the total stops them all.
func TestShareBeforeTotal(t *testing.T) {
	t.Parallel()
	p := quota.New("things", 2, 5)
	var holds []*quota.Hold
	for range 2 {
		h, err := p.Take("a", 1)
		if err != nil {
			t.Fatal(err)
		}
		holds = append(holds, h)
	}
	if _, err := p.Take("a", 1); scopeOf(t, err) != quota.Share {
		t.Fatalf("a's third unit: %v, want a refusal of its share", err)
	}
	for _, c := range []string{"b", "b", "c"} {
		h, err := p.Take(c, 1)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		holds = append(holds, h)
	}
	if _, err := p.Take("d", 1); scopeOf(t, err) != quota.Total {
		t.Fatalf("d with the total held: %v, want a refusal of the total", err)
	}
	if got := p.Held(); got != 5 {
		t.Errorf("Held %d, want 5", got)
	}
	holds[0].Release()
	holds[0].Release() // twice gives back once
	if got := p.Held(); got != 4 {
		t.Errorf("Held %d after one release, want 4", got)
	}
	if _, err := p.Take("d", 1); err != nil {
		t.Fatalf("d after a release: %v", err)
	}
	share, total := p.Refused()
	if share != 1 || total != 1 {
		t.Errorf("refused %d by share and %d by total, want 1 and 1", share, total)
	}
	for _, h := range holds {
		h.Release()
	}
	if p.Clients() != 1 || p.HeldBy("d") != 1 {
		t.Errorf("after releasing all but d's: %d clients, d holds %d", p.Clients(), p.HeldBy("d"))
	}
}

// TestMoreThanShareRefusedAtOnce: a request larger than the share never
// fits, so Wait refuses it without waiting.
func TestMoreThanShareRefusedAtOnce(t *testing.T) {
	t.Parallel()
	p := quota.New("bytes", 10, 100)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if _, err := p.Wait(ctx, "a", 11, 0); scopeOf(t, err) != quota.Share {
		t.Fatalf("11 of a share of 10: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("Wait waited for what can never fit")
	}
	h, err := p.Wait(ctx, "a", 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Grow(ctx, 5, 0); scopeOf(t, err) != quota.Share {
		t.Fatalf("growing 6 by 5 with a share of 10: %v", err)
	}
	if err := h.Grow(ctx, 4, 0); err != nil || h.Units() != 10 {
		t.Fatalf("growing 6 by 4: %v, %d units", err, h.Units())
	}
	h.Release()
	if p.Held() != 0 {
		t.Errorf("Held %d after release", p.Held())
	}
}

// TestWaitForTotal: waiters for the total are served in order as units
// come back, and one whose context ends is refused and leaves the queue.
func TestWaitForTotal(t *testing.T) {
	t.Parallel()
	p := quota.New("bytes", 10, 10)
	full, err := p.Take("a", 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Wait(ctx, "b", 4, 0); scopeOf(t, err) != quota.Total {
		t.Fatalf("b waiting on a full total: %v", err)
	}

	got := make(chan string, 3)
	var wg sync.WaitGroup
	for _, w := range []struct {
		client string
		n      int64
	}{{"b", 8}, {"c", 4}} {
		queued := p.Waiting() + 1
		wg.Go(func() {
			h, err := p.Wait(context.Background(), w.client, w.n, 0)
			if err != nil {
				t.Error(err)
				return
			}
			got <- w.client
			time.Sleep(10 * time.Millisecond)
			h.Release()
		})
		waitQueued(t, p, queued)
	}
	// A newcomer does not pass the queue.
	if _, err := p.Take("d", 1); scopeOf(t, err) != quota.Total {
		t.Fatalf("Take beside waiters: %v", err)
	}
	full.Release()
	wg.Wait()
	close(got)
	var order []string
	for c := range got {
		order = append(order, c)
	}
	if len(order) != 2 || order[0] != "b" {
		t.Errorf("served %v, want b first (it came first)", order)
	}
}

// waitQueued waits until the pool has k waiters.
func waitQueued(t *testing.T, p *quota.Pool, k int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for p.Waiting() < k {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters, want %d", p.Waiting(), k)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWaitingForOwnShareHoldsUpNobody: a client that waits for its own
// share does not stop another client from taking units.
func TestWaitingForOwnShareHoldsUpNobody(t *testing.T) {
	t.Parallel()
	p := quota.New("bytes", 5, 20)
	a, err := p.Take("a", 5)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		h, err := p.Wait(context.Background(), "a", 3, 0)
		h.Release()
		done <- err
	}()
	waitQueued(t, p, 1)
	b, err := p.Take("b", 5)
	if err != nil {
		t.Fatalf("b while a waits for its own share: %v", err)
	}
	b.Release()
	a.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a's waiter was not served once a released")
	}
}

// TestLightestFirst: under LightestFirst a waiter for the total does not
// hold up clients asking for less: a newcomer that fits passes it, and
// once units come back the lighter waiter is served first, whatever
// order they came in; the heavy one is served once it fits.
func TestLightestFirst(t *testing.T) {
	t.Parallel()
	p := quota.New("bytes", 10, 10, quota.LightestFirst())
	a, err := p.Take("a", 7)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 2)
	holds := make(chan *quota.Hold, 2)
	var wg sync.WaitGroup
	wait := func(client string, n int64) {
		queued := p.Waiting() + 1
		wg.Go(func() {
			h, err := p.Wait(context.Background(), client, n, 0)
			if err != nil {
				t.Error(err)
				return
			}
			got <- client
			holds <- h
		})
		waitQueued(t, p, queued)
	}
	wait("b", 8)
	d, err := p.Take("d", 2)
	if err != nil {
		t.Fatalf("a newcomer lighter than the waiter: %v", err)
	}
	wait("c", 4)
	a.Release()
	if first := <-got; first != "c" {
		t.Fatalf("served %s first, want c (4 units, after b's 8)", first)
	}
	d.Release()
	(<-holds).Release()
	wg.Wait()
	if second := <-got; second != "b" {
		t.Fatalf("served %s second, want b", second)
	}
	(<-holds).Release()
	if p.Held() != 0 || p.Waiting() != 0 {
		t.Errorf("held %d, waiting %d after all released", p.Held(), p.Waiting())
	}
}

// TestWaitBounded: units with room are granted at once; without room the
// wait ends after its bound with the refusal of the bound that held it
// up, or when the caller's context ends first; a hold grows the same way.
func TestWaitBounded(t *testing.T) {
	t.Parallel()
	p := quota.New("things", 2, 3)
	a, err := p.Wait(t.Context(), "a", 2, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Wait(t.Context(), "b", 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := p.Wait(t.Context(), "c", 1, 50*time.Millisecond); scopeOf(t, err) != quota.Total {
		t.Fatalf("c at the total: %v, want a refusal of the total", err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("c was refused after %v, before its bound of 50ms", waited)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Wait(cancelled, "c", 1, time.Hour); scopeOf(t, err) != quota.Total {
		t.Fatalf("c with its context ended: %v, want a refusal of the total", err)
	}
	if err := b.Grow(t.Context(), 1, 50*time.Millisecond); scopeOf(t, err) != quota.Total {
		t.Fatalf("b growing at the total: %v, want a refusal of the total", err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		a.Release()
	}()
	if err := b.Grow(t.Context(), 1, time.Hour); err != nil {
		t.Fatalf("b growing once a released: %v", err)
	}
	if got := b.Units(); got != 2 {
		t.Fatalf("b holds %d units, want 2", got)
	}
}
