package solver

import (
	"context"
)

// SquareCountsFiltered tallies, square by square, the solutions of N that
// f matches (All) and the canonical members of the classes with a member
// that f matches (Unique: the placements the filtered unique listing
// lists, which need not match f themselves), with their counts (the
// counts of CountFiltered). Each row and column of All sums to
// Counts.Total and of Unique to Counts.Unique. The zero filter gives the
// board's statistics.
//
// It walks the chunks of PlanFilteredCount one after the other (a server
// runs it on one solver slot) with the plan's image of f, the cheapest to
// search, and maps All back through the symmetry: the image's matching
// solutions are f's moved by it, one to one, and the classes are the same,
// so Unique needs no mapping. It stops with ctx's error, or
// opts.Checkpoint's, when either says so; opts.Workers and Progress are
// not used.
func SquareCountsFiltered(ctx context.Context, n int, f Filter, opts CountOptions) (SquareCounts, Counts, error) {
	if err := checkN(n); err != nil {
		return SquareCounts{}, Counts{}, err
	}
	if err := f.Check(n); err != nil {
		return SquareCounts{}, Counts{}, err
	}
	chunks, err := Chunks(n, FilterChunkDepth(n))
	if err != nil {
		return SquareCounts{}, Counts{}, err
	}
	sym := cheapestSymmetry(n, f)
	g := f.moved(n, sym)
	var stopped error
	check := func() bool {
		if stopped == nil {
			stopped = ctx.Err()
		}
		if stopped == nil && opts.Checkpoint != nil {
			stopped = opts.Checkpoint()
		}
		return stopped == nil
	}
	namer := newClassNamer(n, g)
	image := NewSquareCounts(n)
	var counts Counts
	for _, c := range chunks {
		if !check() {
			break
		}
		w := walk{n: n, fixed: c.Prefix, check: check}
		w.filter(g)
		for p := range walkSeq(w) {
			counts.Total++
			for r, col := range p {
				image.All[r*n+col]++
			}
			if namer.names(p) {
				counts.addClass(OrbitSize(p))
				for r, col := range Canonical(p) {
					image.Unique[r*n+col]++
				}
			}
		}
	}
	if stopped != nil {
		return SquareCounts{}, Counts{}, stopped
	}
	// The image's square (r, c) is f's square sym⁻¹(r, c).
	out := SquareCounts{N: n, All: make([]uint64, n*n), Unique: image.Unique}
	back := sym.inverse()
	for r := range n {
		for c := range n {
			r2, c2 := back.mapSquare(n, r, c)
			out.All[r2*n+c2] = image.All[r*n+c]
		}
	}
	return out, counts, nil
}
