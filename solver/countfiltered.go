package solver

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// CountFiltered counts the solutions of N that f matches (Total) and the
// symmetry classes with at least one member that f matches (Unique, and
// the Orbit fields by class size): the sizes of the filtered listings of
// Page. Unlike a board's Counts, Total counts only the matching members,
// so Counts.Check does not hold. The zero filter is Count.
//
// It splits N into the prefix chunks of FilterChunkDepth and counts them
// in parallel (opts.Workers) with Chunk.CountFiltered, whose sum is the
// whole: a precompute job can count the same chunks one by one. It stops
// with ctx's error, or opts.Checkpoint's, when either says so.
func CountFiltered(ctx context.Context, n int, f Filter, opts CountOptions) (Counts, error) {
	if err := checkN(n); err != nil {
		return Counts{}, err
	}
	if err := f.Check(n); err != nil {
		return Counts{}, err
	}
	if f.IsZero() && opts.Checkpoint == nil {
		return Count(ctx, n, opts)
	}
	chunks, err := Chunks(n, FilterChunkDepth(n))
	if err != nil {
		return Counts{}, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(chunks))
	var (
		next    atomic.Int64
		mu      sync.Mutex
		total   Counts
		done    int
		stopped error
		wg      sync.WaitGroup
	)
	// check is the walks' look at ctx and the checkpoint; the first error
	// stops every worker.
	check := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped == nil {
			stopped = ctx.Err()
		}
		if stopped == nil && opts.Checkpoint != nil {
			stopped = opts.Checkpoint()
		}
		return stopped == nil
	}
	namer := newClassNamer(n, f)
	for range workers {
		wg.Go(func() {
			var local Counts
			for {
				i := int(next.Add(1)) - 1
				if i >= len(chunks) || !check() {
					break
				}
				c, ok := chunks[i].countFiltered(f, namer, check)
				if !ok {
					break
				}
				local.Add(c)
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(chunks))
					mu.Unlock()
				}
			}
			mu.Lock()
			total.Add(local)
			mu.Unlock()
		})
	}
	wg.Wait()
	if stopped != nil {
		return Counts{}, stopped
	}
	return total, nil
}

// FilterChunkDepth is the prefix length CountFiltered splits N into: a
// few hundred to a few thousand chunks, enough to spread over the cores
// when a filter leaves only some of them any work.
func FilterChunkDepth(n int) int {
	switch {
	case n <= 6:
		return min(n, 1)
	case n <= 12:
		return 2
	default:
		return 3
	}
}

// CountFiltered counts the chunk's solutions that f matches (Total) and,
// among them, those that name a class: the smallest member of its class
// that f matches (Unique and the Orbit fields). Summed over all chunks of
// one depth these are CountFiltered's counts. f must pass Check(c.N).
func (c Chunk) CountFiltered(f Filter) Counts {
	if checkN(c.N) != nil || f.Check(c.N) != nil {
		return Counts{}
	}
	out, _ := c.countFiltered(f, newClassNamer(c.N, f), nil)
	return out
}

// countFiltered is Chunk.CountFiltered with a shared namer and a check
// the walk calls every few thousand nodes; ok is false when it stopped.
func (c Chunk) countFiltered(f Filter, namer *classNamer, check func() bool) (out Counts, ok bool) {
	w := walk{n: c.N, fixed: c.Prefix, check: check}
	w.filter(f)
	for p := range walkSeq(w) {
		out.Total++
		if namer.names(p) {
			out.addClass(OrbitSize(p))
		}
	}
	return out, check == nil || check()
}
