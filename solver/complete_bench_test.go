package solver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// BenchmarkComplete completes 20 random cases of N=1,000 (and 10,000)
// with 10 pinned queens that do not attack each other, the acceptance
// case of issue 15, and of N=32 with 4 (the exact search), and reports
// the median and the slowest case's time (each case's mean over the
// iterations). Every answer is checked.
func BenchmarkComplete(b *testing.B) {
	for _, tc := range []struct{ n, pinned int }{{32, 4}, {1000, 10}, {solver.MaxCompleteN, 10}} {
		n := tc.n
		b.Run(fmt.Sprintf("N=%d/pinned=%d", n, tc.pinned), func(b *testing.B) {
			r := rand.New(rand.NewPCG(15, uint64(n)))
			filters := make([]solver.Filter, 20)
			for i := range filters {
				filters[i] = solver.Filter{Queens: randomPins(r, n, tc.pinned)}
			}
			spent := make([]time.Duration, len(filters))
			for b.Loop() {
				for i, f := range filters {
					start := time.Now()
					c, err := solver.Complete(context.Background(), n, f, solver.Budget{})
					spent[i] += time.Since(start)
					if err != nil {
						b.Fatal(err)
					}
					checkCompleted(b, n, f, c)
				}
			}
			slices.Sort(spent)
			per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
			b.ReportMetric(per(spent[len(spent)/2-1]+spent[len(spent)/2])/2, "median-s/case")
			b.ReportMetric(per(spent[len(spent)-1]), "max-s/case")
		})
	}
}
