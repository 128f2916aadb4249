package graph

import (
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// The caches of pages and ranks: what names an entry and what it costs.
// Pages and ranks never change once computed (the solver's are fixed,
// the store's come from finished boards only).

// pageKey names a cached page: a source's answer to a page request.
// Pages of the store and of the solver are equal by contract; the source
// is part of the key all the same.
type pageKey struct {
	source    Source
	n         int
	unique    bool
	direction store.Direction
	cursor    string
	limit     int
	filter    string // solver.Filter.String(); "" for none
}

type rankKey struct {
	n         int
	unique    bool
	placement string
}

// pageCost and rankCost estimate the bytes a cached page or rank takes:
// its key, its placements (a slice header and an int a row each, rounded
// up to Go's allocation sizes) and the cache's own entry.
func pageCost(k pageKey, page []solver.Placement) int64 {
	cost := int64(len(k.cursor)+len(k.filter)) + 160 + 24*int64(len(page))
	for _, p := range page {
		cost += 8 * int64((len(p)+1)/2*2)
	}
	return cost
}

func rankCost(k rankKey, _ uint64) int64 { return int64(len(k.placement)) + 120 }

func makePageKey(src Source, req store.PageRequest, f solver.Filter) pageKey {
	return pageKey{source: src, n: req.N, unique: req.Unique, direction: req.Direction, cursor: string(req.Cursor.Bytes()), limit: req.Limit, filter: f.String()}
}

// cacheLookup tells OnCacheLookup of a lookup in cache.
func (r *Resolver) cacheLookup(cache string, hit bool) {
	if r.opts.OnCacheLookup != nil {
		r.opts.OnCacheLookup(cache, hit)
	}
}
