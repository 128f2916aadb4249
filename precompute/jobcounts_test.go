package precompute_test

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/precompute"
)

// TestJobCounts: JobCounts agrees with River's own job list, by kind and
// state, before the workers start (board jobs waiting) and once the
// boards are done and River has recorded every job completed.
func TestJobCounts(t *testing.T) {
	onBackends(t, func(t *testing.T, backend string) {
		b := setup(t, backend, options{})
		check := func(when string) {
			t.Helper()
			counts, err := b.engine.JobCounts(b.ctx)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			got := map[string]int64{}
			for _, c := range counts {
				got[c.Kind+" "+string(c.State)] += c.Count
			}
			want := map[string]int64{}
			for _, kind := range []string{precompute.KindBoard, precompute.KindChunk} {
				for _, j := range b.jobs(t, kind) {
					want[kind+" "+string(j.State)]++
				}
			}
			if len(want) == 0 || !maps.Equal(got, want) {
				t.Errorf("%s: JobCounts %v, River lists %v", when, got, want)
			}
		}
		b.ask(t, 5, 6, 7)
		check("before start")
		b.start(t)
		b.waitFinished(t, 5, 6, 7)
		// A board is done before River records its last job completed:
		// both are read once River has.
		eventually.True(t, time.Minute, func() string {
			for _, kind := range []string{precompute.KindBoard, precompute.KindChunk} {
				for _, j := range b.jobs(t, kind) {
					if j.State != rivertype.JobStateCompleted {
						return fmt.Sprintf("%s job %d is %s", kind, j.ID, j.State)
					}
				}
			}
			return ""
		})
		check("boards done")
	})
}
