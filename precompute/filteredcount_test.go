package precompute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// randomFilter pins one or two queens and blocks up to three squares of a
// board of size n, at random (a filter no solution meets is fine).
func randomFilter(r *rand.Rand, n int) solver.Filter {
	var f solver.Filter
	for range 1 + r.IntN(2) {
		f.Queens = append(f.Queens, solver.Square{Row: r.IntN(n), Col: r.IntN(n)})
	}
	for range r.IntN(4) {
		f.Empty = append(f.Empty, solver.Square{Row: r.IntN(n), Col: r.IntN(n)})
	}
	return f
}

// bruteForceCount counts the solutions of n that f matches by filtering
// the full enumeration.
func bruteForceCount(n int, f solver.Filter) uint64 {
	var total uint64
	for p := range solver.All(n) {
		if f.Matches(p) {
			total++
		}
	}
	return total
}

// TestFilteredCounts counts N=10..12 under random filters through the
// jobs: the stored totals equal brute force, the unique counts the
// solver's, every chunk was written once, asking again queues nothing,
// and a duplicate of a chunk's job, run after the count is done, adds
// nothing.
func TestFilteredCounts(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{})
		seed := rand.Uint64()
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 0))
		type ask struct {
			n    int
			f    solver.Filter
			want solver.Counts
		}
		var asks []ask
		for n := 10; n <= 12; n++ {
			f := randomFilter(r, n)
			want, err := solver.CountFiltered(b.ctx, n, f, solver.CountOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if brute := bruteForceCount(n, f); brute != want.Total {
				t.Fatalf("N=%d under %v: brute force %d, the solver %d", n, f, brute, want.Total)
			}
			asks = append(asks, ask{n, f, want})
		}
		for _, a := range asks {
			fc, err := b.engine.PrecomputeCount(b.ctx, a.n, a.f)
			if err != nil || fc.State != store.Running || fc.Filter != a.f.Key() || fc.ChunksTotal < 1 {
				t.Fatalf("PrecomputeCount(%d, %v) = %+v, %v", a.n, a.f, fc, err)
			}
		}
		jobs := len(b.jobs(t, precompute.KindFilteredChunk))
		for _, a := range asks {
			if _, err := b.engine.PrecomputeCount(b.ctx, a.n, a.f); err != nil {
				t.Fatal(err)
			}
		}
		if again := len(b.jobs(t, precompute.KindFilteredChunk)); again != jobs {
			t.Fatalf("asking again queued %d more jobs", again-jobs)
		}
		b.start(t)
		waitCounted := func() {
			eventually.True(t, 5*time.Minute, func() string {
				for _, a := range asks {
					fc, err := b.store.FilteredCount(b.ctx, a.n, a.f)
					if err != nil || fc.State != store.Done {
						return fmt.Sprintf("N=%d under %v: %+v, %v", a.n, a.f, fc, err)
					}
				}
				return ""
			})
		}
		waitCounted()
		check := func() {
			t.Helper()
			for _, a := range asks {
				fc, err := b.store.FilteredCount(b.ctx, a.n, a.f)
				if err != nil || fc.Total != a.want.Total || fc.Unique != a.want.Unique || fc.ChunksDone != fc.ChunksTotal {
					t.Errorf("N=%d under %v: stored %+v, %v; want total %d, unique %d", a.n, a.f, fc, err, a.want.Total, a.want.Unique)
				}
			}
		}
		check()
		// A duplicate of the first chunk of each count, as a rescued job
		// of a worker that only seemed gone would be.
		for _, a := range asks {
			b.insert(t, precompute.FilteredChunkArgs{N: a.n, Filter: a.f, Index: 0})
		}
		eventually.True(t, time.Minute, func() string {
			for _, j := range b.jobs(t, precompute.KindFilteredChunk) {
				if j.State != rivertype.JobStateCompleted {
					return fmt.Sprintf("job %d is %s", j.ID, j.State)
				}
			}
			return ""
		})
		if got := len(b.jobs(t, precompute.KindFilteredChunk)); got != jobs+len(asks) {
			t.Errorf("%d filtered chunk jobs, want %d and the %d duplicates", got, jobs, len(asks))
		}
		check()
	})
}

// TestFilteredCountBadInput checks that the engine refuses what it cannot
// count, with EINVALID, and queues nothing.
func TestFilteredCountBadInput(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{})
		for _, tt := range []struct {
			n int
			f solver.Filter
		}{
			{0, solver.Filter{Queens: []solver.Square{{Row: 0, Col: 0}}}},
			{solver.MaxSearchN + 1, solver.Filter{Queens: []solver.Square{{Row: 0, Col: 0}}}},
			{8, solver.Filter{}},
			{8, solver.Filter{Empty: []solver.Square{{Row: 8, Col: 0}}}},
		} {
			_, err := b.engine.PrecomputeCount(context.Background(), tt.n, tt.f)
			if nqueens.ErrorCode(err) != nqueens.EINVALID {
				t.Errorf("PrecomputeCount(%d, %v): %v, want EINVALID", tt.n, tt.f, err)
			}
		}
		if jobs := b.jobs(t, precompute.KindFilteredChunk); len(jobs) != 0 {
			t.Errorf("%d jobs queued", len(jobs))
		}
	})
}

// faultyCounts is the real store refusing the writes of one chunk of the
// filtered counts while refuse is set.
type faultyCounts struct {
	index  int
	refuse atomic.Bool
}

func (s *faultyCounts) faults() faults {
	return faults{writeFilteredChunk: func(_ context.Context, w store.FilteredChunkWrite) error {
		if s.refuse.Load() && w.Index == s.index {
			return errInjected
		}
		return nil
	}}
}

// TestFailingFilteredChunk makes one chunk's writes fail every time: after
// its attempts the count fails with the error recorded, and asking for it
// again resumes it to brute force's count once the fault is gone.
func TestFailingFilteredChunk(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		faulty := &faultyCounts{index: 3}
		faulty.refuse.Store(true)
		b := setup(t, backend, options{
			config: func(c *precompute.Config) { c.MaxAttempts, c.RetryPolicy = 2, fastRetries{} },
			faults: faulty.faults(),
		})
		const n = 10
		f := solver.Filter{Queens: []solver.Square{{Row: 4, Col: 7}}}
		if _, err := b.engine.PrecomputeCount(b.ctx, n, f); err != nil {
			t.Fatal(err)
		}
		b.start(t)
		var fc store.FilteredCount
		eventually.True(t, time.Minute, func() string {
			var err error
			fc, err = b.store.FilteredCount(b.ctx, n, f)
			if err != nil || fc.State != store.Failed {
				return fmt.Sprintf("%+v, %v", fc, err)
			}
			return ""
		})
		if !strings.Contains(fc.LastError, errInjected.Error()) || !strings.Contains(fc.LastError, "2 times") {
			t.Errorf("failed count: %+v; want the error recorded", fc)
		}
		// The job is discarded as its worker returns, just after the
		// count's failure is recorded; until then River would drop its
		// duplicate (unique while it runs).
		eventually.True(t, 10*time.Second, func() string {
			for _, j := range b.jobs(t, precompute.KindFilteredChunk) {
				if j.State == rivertype.JobStateRunning || j.State == rivertype.JobStateRetryable {
					return fmt.Sprintf("job %d is %s", j.ID, j.State)
				}
			}
			return ""
		})
		faulty.refuse.Store(false)
		if fc, err := b.engine.PrecomputeCount(b.ctx, n, f); err != nil || fc.State != store.Running {
			t.Fatalf("resuming: %+v, %v", fc, err)
		}
		eventually.True(t, time.Minute, func() string {
			fc, err := b.store.FilteredCount(b.ctx, n, f)
			if err != nil || fc.State != store.Done {
				return fmt.Sprintf("%+v, %v", fc, err)
			}
			return ""
		})
		fc, _ = b.store.FilteredCount(b.ctx, n, f)
		if want := bruteForceCount(n, f); fc.Total != want || fc.LastError != "" {
			t.Errorf("resumed count: %+v; want total %d and no error", fc, want)
		}
	})
}

// TestFilteredChunkArgsJSON: a chunk job's arguments hold the filter as
// its canonical text, the form jobs queued before the filter was typed
// hold too, and read back as the same filter.
func TestFilteredChunkArgsJSON(t *testing.T) {
	t.Parallel()
	f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 3}}, Empty: []solver.Square{{Row: 1, Col: 1}}}
	data, err := json.Marshal(precompute.FilteredChunkArgs{N: 8, Filter: f, Index: 2})
	if want := `{"n":8,"filter":"q0.3,e1.1","index":2}`; err != nil || string(data) != want {
		t.Fatalf("json.Marshal = %s, %v; want %s", data, err, want)
	}
	var back precompute.FilteredChunkArgs
	if err := json.Unmarshal(data, &back); err != nil || back.N != 8 || back.Index != 2 || back.Filter.Key() != f.Key() {
		t.Errorf("json.Unmarshal(%s) = %+v, %v", data, back, err)
	}
}
