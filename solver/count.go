package solver

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// CountOptions tune Count. The zero value uses every core and reports no
// progress.
type CountOptions struct {
	// Workers is how many goroutines count tasks; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each finished task with the number
	// of tasks done and the total. Calls come from the workers one at a time.
	Progress func(done, total int)
	// Checkpoint, when set, is called by CountFiltered's workers every few
	// thousand nodes of their searches, one at a time; an error stops the
	// count, and CountFiltered returns it. A server bounds a count by its
	// request's solver budget with it. Count ignores it.
	Checkpoint func() error
}

// Count returns the total and unique solutions of N and its classes by
// orbit size. It runs the tasks of N in parallel and stops early, with the
// context's error, when ctx is cancelled.
func Count(ctx context.Context, n int, opts CountOptions) (Counts, error) {
	tasks, err := Tasks(n)
	if err != nil {
		return Counts{}, err
	}
	return CountTasks(ctx, tasks, opts)
}

// CountTasks counts a list of tasks (of one or several N) in parallel and
// returns the sum. The tasks must come from Tasks; they are not re-checked.
// They are counted in the order that lets a worker reuse its tables
// (meetOrder), not in the list's.
func CountTasks(ctx context.Context, tasks []Task, opts CountOptions) (Counts, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(tasks))
	order := meetOrder(tasks)
	var (
		next  atomic.Int64
		mu    sync.Mutex
		total Counts
		done  int
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			var local Counts
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(tasks) {
					break
				}
				c := countTask(ctx, tasks[order[i]], true)
				local.Add(c)
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(tasks))
					mu.Unlock()
				}
			}
			mu.Lock()
			total.Add(local)
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Counts{}, err
	}
	return total, nil
}
