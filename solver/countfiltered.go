package solver

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// CountFiltered counts the solutions of N that f matches (Total) and the
// symmetry classes with at least one member that f matches (Unique, and
// the Orbit fields by class size): the sizes of the filtered listings of
// Page. Unlike a board's Counts, Total counts only the matching members,
// so Counts.Check does not hold. The zero filter is Count.
//
// It counts the chunks of PlanFilteredCount in parallel (opts.Workers)
// with Chunk.CountFiltered, whose sum is the whole: a precompute job can
// count the same chunks one by one, anywhere. It stops
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
	plan, err := PlanFilteredCount(n, f)
	if err != nil {
		return Counts{}, err
	}
	f, chunks := plan.Filter, plan.Chunks
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

// FilteredCountPlan is how CountFiltered splits the count of a filter f:
// the chunks of N to count, each with Filter, an image of f under a
// symmetry of the board. The symmetry maps the solutions that match f one
// to one onto those that match its image, and each class onto itself, so
// both count the same; the image is the one whose search is smallest.
type FilteredCountPlan struct {
	Filter Filter
	Chunks []Chunk
}

// PlanFilteredCount plans the count of the solutions of N that f matches:
// Σ Chunks[i].CountFiltered(Filter) is CountFiltered(n, f). The zero
// filter's chunks are those of RankChunkDepth: their counts are the rank
// index of a board that keeps counts only.
func PlanFilteredCount(n int, f Filter) (FilteredCountPlan, error) {
	if err := checkN(n); err != nil {
		return FilteredCountPlan{}, err
	}
	if err := f.Check(n); err != nil {
		return FilteredCountPlan{}, err
	}
	depth := FilterChunkDepth(n)
	if f.IsZero() {
		depth = RankChunkDepth(n)
	}
	chunks, err := Chunks(n, depth)
	if err != nil {
		return FilteredCountPlan{}, err
	}
	return FilteredCountPlan{Filter: cheapestImage(n, f), Chunks: chunks}, nil
}

// probeLimit bounds the partial placements cheapestImage counts per image
// and depth: a few milliseconds of search in all.
const probeLimit = 1 << 14

// cheapestImage returns the image of f whose search looks smallest: the
// one with the fewest partial placements of the first d rows that keep to
// its masks, for the deepest d up to N/2 at which some image has fewer
// than probeLimit. A pinned queen high on the board, near the middle of
// its row, prunes most; which image puts its pins there is what this
// measures (on N=17 with two pins the best image's search visits 11.5
// million nodes, the identity's 16.8 and the worst 37).
func cheapestImage(n int, f Filter) Filter {
	return f.moved(n, cheapestSymmetry(n, f))
}

// cheapestSymmetry is the symmetry that moves f to cheapestImage: what a
// tally of squares (SquareCountsFiltered) maps back through.
func cheapestSymmetry(n int, f Filter) Symmetry {
	var images []Symmetry
	var masks [][]uint32
	for _, s := range Symmetries {
		m := searchMasks(n, f.moved(n, s))
		if !slices.ContainsFunc(masks, func(o []uint32) bool { return slices.Equal(o, m) }) {
			images, masks = append(images, s), append(masks, m)
		}
	}
	best := 0
	for d := 1; d <= n/2 && len(images) > 1; d++ {
		counts := make([]int, len(masks))
		for i, m := range masks {
			counts[i] = prefixCount(n, m, d, probeLimit)
		}
		least := slices.Index(counts, slices.Min(counts))
		if counts[least] >= probeLimit {
			break
		}
		best = least
	}
	return images[best]
}

// prefixCount counts the placements of the first depth rows that keep to
// masks, stopping at limit.
func prefixCount(n int, masks []uint32, depth, limit int) int {
	count := 0
	var place func(r int, cols, ld, rd uint32)
	place = func(r int, cols, ld, rd uint32) {
		if r == depth {
			count++
			return
		}
		avail := masks[r] &^ (cols | ld | rd) & (uint32(1)<<uint(n) - 1)
		for avail != 0 && count < limit {
			bit := avail & -avail
			avail ^= bit
			place(r+1, cols|bit, (ld|bit)<<1, (rd|bit)>>1)
		}
	}
	place(0, 0, 0, 0)
	return count
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

// RankIndexMaxN is the largest N whose boards kept as counts only get a
// rank index: the index lists every solution (N=19 has 4.97 billion, 52
// times N=17's), and N=20's would be 654,548 chunks of 39 billion.
const RankIndexMaxN = 19

// RankChunkDepth is the prefix length of the chunks whose counts rank the
// solutions of a board that keeps counts only: the chunk of rank k is found
// by the chunks' prefix sums, and the solver then walks within it, so a
// chunk holds at most about 100,000 solutions (a tenth of a second of
// walking on one core) on average: 3 rows up to N=17 (N=17: 2,786 chunks
// of 34,000), 4 for N=18 and 19 (N=19: 47,732 chunks of 104,000), 5 from
// N=20 (654,548 chunks of 60,000).
func RankChunkDepth(n int) int {
	switch {
	case n <= 17:
		return FilterChunkDepth(n)
	case n <= 19:
		return 4
	default:
		return 5
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
	if f.IsZero() {
		return c.rankCounts(check)
	}
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

// CountFilteredContext is Chunk.CountFiltered stopping with ctx's error
// when ctx ends: a precompute job's chunk, which its job's timeout or the
// worker's stop may cancel.
func (c Chunk) CountFilteredContext(ctx context.Context, f Filter) (Counts, error) {
	if err := checkN(c.N); err != nil {
		return Counts{}, err
	}
	if err := f.Check(c.N); err != nil {
		return Counts{}, err
	}
	out, ok := c.countFiltered(f, newClassNamer(c.N, f), func() bool { return ctx.Err() == nil })
	if !ok {
		return Counts{}, ctx.Err()
	}
	return out, nil
}
