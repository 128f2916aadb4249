package solverpool

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
)

// TestQueuePerClient: with one slot and a queue of 2 per client, a
// client's third search is refused at once, RATE_LIMITED, while its first
// holds the slot and its second waits; another client's search still
// queues, and runs once the slot is free. What a client is refused is
// given back: once its searches end, it searches again.
func TestQueuePerClient(t *testing.T) {
	t.Parallel()
	s := New(Config{Slots: 1, Quantum: 20 * time.Millisecond, Budget: time.Minute, QueuePerClient: 2})
	ctx := t.Context()
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	search := func(client string) <-chan error {
		done := make(chan error, 1)
		go func() {
			done <- s.search(s.WithOperation(ctx, client), "a search", func(func() error) error {
				started <- struct{}{}
				<-release
				return nil
			})
		}()
		return done
	}
	holding := search("a")
	<-started
	waiting := search("a")
	other := search("b")
	for s.queue.HeldBy("a") != 2 || s.queue.HeldBy("b") != 1 {
		time.Sleep(time.Millisecond)
	}

	start := time.Now()
	third, cancel := context.WithTimeout(s.WithOperation(ctx, "a"), 5*time.Second)
	defer cancel()
	err := s.search(third, "a search", func(func() error) error { return nil })
	var e *apierror.Error
	if !errors.As(err, &e) || e.Code != apierror.RateLimited || e.Reason != "SOLVER_PER_CLIENT" || e.RetryAfter <= 0 {
		t.Fatalf("a's third search: %v; want RATE_LIMITED SOLVER_PER_CLIENT with a retry", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a's third search was refused after %s: it waited", took)
	}
	t.Logf("a's third search: %s", e.Message)

	close(release)
	for name, done := range map[string]<-chan error{"a's first": holding, "a's second": waiting, "b's": other} {
		if err := <-done; err != nil {
			t.Errorf("%s search: %v", name, err)
		}
	}
	if held := s.queue.Held(); held != 0 {
		t.Errorf("%d searches still counted once all ended", held)
	}
	if err := s.search(s.WithOperation(context.Background(), "a"), "a search", func(func() error) error { return nil }); err != nil {
		t.Errorf("a's search once its others ended: %v", err)
	}
	if got, want := QueueTotal(2, 20*time.Millisecond, 8), 800; got != want {
		t.Errorf("QueueTotal(2 slots, 20ms, 8) = %d, want %d", got, want)
	}
}
