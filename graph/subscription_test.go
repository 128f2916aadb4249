package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// TestPrecomputeWakesSubscribers: a subscriber of a board nobody computes
// waits without polling it; the precompute mutation of the same server
// pokes its watcher, so the subscriber sees the board pending at once
// (the sweep, which would notice work asked for elsewhere, is an hour
// away here), then follows it, polled, through running to done.
func TestPrecomputeWakesSubscribers(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const token = "poke-token"
			api, j := setupEngine(t, backend, token, func(c *server.Config) {
				c.Graph.PollInterval = 50 * time.Millisecond
				c.Graph.SweepInterval = time.Hour
			})
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			sub := api.Subscribe(t, ctx, `subscription { boardProgress(n: 9) { n state } }`, nil)
			type progress struct{ BoardProgress struct{ State string } }
			var m progress
			if !sub.Next(t, &m) || m.BoardProgress.State != "UNKNOWN" {
				t.Fatalf("first: %+v", m)
			}
			r := api.Post(t, apitest.Request{Query: `mutation { precompute(n: 9) { state } }`}, "Authorization", "Bearer "+token)
			if r.Status != 200 || len(r.Errors) > 0 {
				t.Fatalf("precompute: %d %s", r.Status, r.Raw)
			}
			if !sub.Next(t, &m) || m.BoardProgress.State != "PENDING" {
				t.Fatalf("after the precompute mutation: %+v; want PENDING", m)
			}
			if err := j.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Shutdown() })
			var states []string
			for sub.Next(t, &m) {
				states = append(states, m.BoardProgress.State)
			}
			if len(states) == 0 || states[len(states)-1] != "DONE" {
				t.Fatalf("states after the workers started: %v; want them to end with DONE", states)
			}
			t.Logf("%s: UNKNOWN, PENDING on the mutation, then %v", backend, states)
		})
	}
}
