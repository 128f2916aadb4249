package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// countPollEvery is how often precompute --where --wait reads the counts.
const countPollEvery = 200 * time.Millisecond

// precomputeCounts asks for the count of each board of ns under f
// (precompute --where). Without wait it prints where each stands; with
// wait (the jobs run here too) it prints each count as it is done.
func precomputeCounts(ctx context.Context, j *service.Jobs, st store.ReadCloser, ns []int, f solver.Filter, wait bool, c console) error {
	for _, n := range ns {
		fc, err := j.PrecomputeCount(ctx, n, f)
		if err != nil {
			return fmt.Errorf("asking for the count of N=%d under %s: %w", n, f.Key(), err)
		}
		if !wait || fc.State == store.Done {
			fmt.Fprintln(c.stdout, describeFilteredCount(fc))
		}
	}
	if !wait {
		return nil
	}
	tick := time.NewTicker(countPollEvery)
	defer tick.Stop()
	pending := map[int]bool{}
	for _, n := range ns {
		pending[n] = true
	}
	for len(pending) > 0 {
		for _, n := range ns {
			if !pending[n] {
				continue
			}
			fc, err := st.FilteredCount(ctx, n, f)
			if err != nil {
				return err
			}
			if fc.State == store.Done {
				delete(pending, n)
				fmt.Fprintln(c.stdout, describeFilteredCount(fc))
			}
		}
		if len(pending) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// describeFilteredCount is one line on a count under a filter.
func describeFilteredCount(fc store.FilteredCount) string {
	if fc.State == store.Done {
		return fmt.Sprintf("N=%d where %s: %d solutions, %d unique (%d chunks)", fc.N, fc.Filter, fc.Total, fc.Unique, fc.ChunksTotal)
	}
	return fmt.Sprintf("N=%d where %s %s: %d of %d chunks counted; its jobs run on the workers (nqueens worker, nqueens serve)", fc.N, fc.Filter, fc.State, fc.ChunksDone, fc.ChunksTotal)
}
