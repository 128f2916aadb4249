package precompute_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestDefaultConfigIsTaken: New takes DefaultConfig as it is.
func TestDefaultConfigIsTaken(t *testing.T) {
	t.Parallel()
	st := sqlitetest.OpenTemp(t)
	if _, err := precompute.New(st, riversqlite.New(st.Writer()), precompute.DefaultConfig()); err != nil {
		t.Fatalf("New(DefaultConfig()): %v", err)
	}
}

// TestConfigRefused: a value New cannot work with is refused, with an
// error that names the field and says what is allowed; it is never
// replaced by a default.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	st := sqlitetest.OpenTemp(t)
	for _, tt := range []struct {
		change func(*precompute.Config)
		field  string
		says   string
	}{
		{func(c *precompute.Config) { c.Workers = 0 }, "Workers", "must be at least 1, got 0"},
		{func(c *precompute.Config) { c.StoreMaxN = 0 }, "StoreMaxN", "must be from 1 to 32, got 0"},
		{func(c *precompute.Config) { c.MaxAttempts = 0 }, "MaxAttempts", "must be at least 1, got 0"},
		{func(c *precompute.Config) { c.JobTimeout = 0 }, "JobTimeout", "must be positive, got 0s"},
		{func(c *precompute.Config) { c.Heartbeat = 0 }, "Heartbeat", "must be positive, got 0s"},
		{func(c *precompute.Config) { c.StopTimeout = -time.Second }, "StopTimeout", "must not be negative, got -1s"},
		{func(c *precompute.Config) { c.RescueAfter = 0 }, "RescueAfter", "must be at least 5s (5 heartbeats), got 0s"},
		{func(c *precompute.Config) { c.Heartbeat = 10 * time.Second }, "RescueAfter", "must be at least 50s (5 heartbeats), got 20s"},
		{func(c *precompute.Config) { c.Logger = nil }, "Logger", "is nil; give a logger"},
	} {
		cfg := precompute.DefaultConfig()
		tt.change(&cfg)
		_, err := precompute.New(st, riversqlite.New(st.Writer()), cfg)
		var e *configcheck.Error
		if !errors.As(err, &e) || e.Field != tt.field || !strings.Contains(err.Error(), "precompute: "+tt.field+" "+tt.says) {
			t.Errorf("New with a bad %s: %v; want an error naming it and saying %q", tt.field, err, tt.says)
		}
	}
}

// TestStopTimeoutZero: with StopTimeout 0, Stop cancels the running
// chunks at once (they roll back, to run again later) instead of letting
// them commit: a chunk held for an hour does not hold the stop.
func TestStopTimeoutZero(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		held := &faultyStore{n: 6, hold: time.Hour}
		b := setup(t, backend, options{
			config: func(c *precompute.Config) { c.StopTimeout = 0 },
			faults: held.faults(),
		})
		b.ask(t, 6)
		b.start(t)
		waitRunningChunk(t, b)
		ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
		defer cancel()
		start := time.Now()
		if err := b.engine.Stop(ctx); err != nil {
			t.Fatalf("Stop with StopTimeout 0 and a chunk held for an hour: %v", err)
		}
		// The old default (10 s) or River's own zero (for ever) would
		// still be waiting; 5 s is room for a loaded machine's rollback.
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Stop with StopTimeout 0 took %s; want the running chunks cancelled at once", took)
		}
		board, err := b.store.Board(context.Background(), 6)
		if err != nil || board.ChunksDone != 0 {
			t.Errorf("board 6 after a stop that cancelled its chunks: %+v, %v; want no chunk done", board, err)
		}
	})
}

// waitRunningChunk waits until a chunk job runs.
func waitRunningChunk(t *testing.T, b *bundle) {
	t.Helper()
	eventually.True(t, time.Minute, func() string {
		for _, j := range b.jobs(t, precompute.KindChunk) {
			if j.State == rivertype.JobStateRunning {
				return ""
			}
		}
		return "no chunk job runs"
	})
}
