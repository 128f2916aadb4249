package graph

import (
	"context"
	"fmt"

	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Paging: a listing's page between cursors, from its source through the
// page cache, and the connection that answers it.

// pageArgs checks first/last and says how many items to list and in
// which direction.
func (r *Resolver) pageArgs(first, last *int) (limit int, backward bool, err error) {
	max := r.opts.MaxPageSize
	switch {
	case first != nil && last != nil:
		return 0, false, badInput("give first (to page forward, with after) or last (to page backward, with before), not both")
	case first != nil:
		if *first < 0 || *first > max {
			return 0, false, badInput("first must be from 0 to %d (the maximum page size), got %d", max, *first)
		}
		return *first, false, nil
	case last != nil:
		if *last < 0 || *last > max {
			return 0, false, badInput("last must be from 0 to %d (the maximum page size), got %d", max, *last)
		}
		return *last, true, nil
	}
	return r.opts.DefaultPageSize, false, nil
}

// connection resolves solutions and uniqueSolutions, of Query and Board.
// st is the board's row when the caller has it already. A filtered
// listing pages from the solver, stored board or not.
func (r *Resolver) connection(ctx context.Context, n int, unique bool, st *store.Board, first *int, after *string, last *int, before *string, where *SolutionFilter) (*SolutionConnection, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	limit, backward, err := r.pageArgs(first, last)
	if err != nil {
		return nil, err
	}
	filter, err := filterArg(n, where)
	if err != nil {
		return nil, err
	}
	var a, b solver.Placement
	if after != nil {
		if a, err = decodeCursor("after", *after, unique, n); err != nil {
			return nil, err
		}
	}
	if before != nil {
		if b, err = decodeCursor("before", *before, unique, n); err != nil {
			return nil, err
		}
	}
	if st == nil {
		s, err := r.status(ctx, n)
		if err != nil {
			return nil, err
		}
		st = &s
	}
	src, tag := r.source(*st)
	if !filter.IsZero() {
		src, tag = r.solver, SourceSolver
	}
	page, err := r.window(ctx, src, tag, n, unique, filter, a, b, limit+1, backward)
	if err != nil {
		return nil, err
	}
	more := len(page) > limit
	if more {
		if backward {
			page = page[len(page)-limit:]
		} else {
			page = page[:limit]
		}
	}
	conn := &SolutionConnection{
		Edges:  make([]*SolutionEdge, len(page)),
		Nodes:  make([]*Solution, len(page)),
		Source: tag,
		n:      n,
		unique: unique,
		board:  *st,
		filter: filter,
		PageInfo: &PageInfo{
			// A cursor names an item of the listing (decodeCursor checks
			// it), so there is more beyond a cursor given as a bound.
			HasNextPage:     more && !backward || backward && b != nil,
			HasPreviousPage: more && backward || !backward && a != nil,
		},
	}
	if !filter.IsZero() {
		// Under a filter a cursor is an item of the board's listing, not
		// necessarily of the filtered one: the direction not paged asks
		// the solver whether a matching item lies at or beyond it.
		switch {
		case backward && b != nil:
			conn.PageInfo.HasNextPage, err = r.matchesBeyond(ctx, n, unique, filter, b, store.Forward)
		case !backward && a != nil:
			conn.PageInfo.HasPreviousPage, err = r.matchesBeyond(ctx, n, unique, filter, a, store.Backward)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(page) > 0 {
		first := page[0]
		pr := &pageRank{unique: unique, find: func(ctx context.Context) (uint64, error) {
			return r.rankOf(ctx, src, n, unique, first)
		}}
		if !filter.IsZero() {
			// A filtered page skips items of the listing: each item's rank
			// is found, from the board's own source.
			boardSrc, boardTag := r.source(*st)
			pr.find, pr.findEach = nil, func(ctx context.Context) ([]uint64, error) {
				return r.ranksOf(ctx, boardSrc, boardTag, n, unique, page)
			}
		}
		// One allocation for all the solutions, one for all the edges.
		sols := make([]Solution, len(page))
		edges := make([]SolutionEdge, len(page))
		for i, p := range page {
			sols[i] = Solution{N: n, p: p, page: pr, offset: i}
			edges[i] = SolutionEdge{Node: &sols[i], Cursor: EncodeCursor(unique, p)}
			conn.Nodes[i] = &sols[i]
			conn.Edges[i] = &edges[i]
		}
		conn.PageInfo.StartCursor = &conn.Edges[0].Cursor
		conn.PageInfo.EndCursor = &conn.Edges[len(page)-1].Cursor
	}
	return conn, nil
}

// window returns up to limit solutions of a listing strictly between
// after and before (each nil for none), the first ones (forward) or the
// last ones (backward), in ascending order: src's page next to one bound,
// cut at the other.
func (r *Resolver) window(ctx context.Context, src Listing, tag Source, n int, unique bool, f solver.Filter, after, before solver.Placement, limit int, backward bool) ([]solver.Placement, error) {
	req := store.PageRequest{N: n, Unique: unique, Direction: store.Forward, Cursor: after, Limit: limit}
	if backward {
		req.Direction, req.Cursor = store.Backward, before
	}
	page, err := r.page(ctx, src, tag, req, f)
	if err != nil {
		return nil, err
	}
	switch {
	case backward && after != nil:
		// At or before the window's start: a backward page ends there.
		i := 0
		for i < len(page) && page[i].Compare(after) <= 0 {
			i++
		}
		page = page[i:]
	case !backward && before != nil:
		i := 0
		for i < len(page) && page[i].Compare(before) < 0 {
			i++
		}
		page = page[:i]
	}
	return page, nil
}

// page returns a page from src, through the page cache; under a filter,
// from the solver.
func (r *Resolver) page(ctx context.Context, src Listing, tag Source, req store.PageRequest, f solver.Filter) ([]solver.Placement, error) {
	var key pageKey
	if r.pages != nil {
		key = makePageKey(tag, req, f)
		p, ok := r.pages.Get(key)
		r.cacheLookup("page", ok)
		if ok {
			return p, nil
		}
	}
	v, err := r.solver.Once(ctx, makePageKey(tag, req, f), func() (any, error) {
		var (
			sols []store.Solution
			err  error
		)
		if f.IsZero() {
			sols, err = src.Page(ctx, req)
		} else {
			sols, err = r.solver.FilteredPage(ctx, req, f)
		}
		if err != nil {
			return nil, err
		}
		page := make([]solver.Placement, len(sols))
		for i, s := range sols {
			page[i] = s.Placement
		}
		return page, nil
	})
	if err != nil {
		return nil, dependencyError(ctx, fmt.Sprintf("listing solutions of N=%d", req.N), err)
	}
	p := v.([]solver.Placement)
	if r.pages != nil {
		r.pages.AddFor(solverpool.ClientOf(ctx), key, p) // an eighth of the cache per client
	}
	return p, nil
}

// matchesBeyond reports whether the listing of N under f (unique: the
// classes with a member that f matches, by their canonical member) has
// an item at cursor or beyond it in direction: cursor itself, or the one
// item a filtered page of one finds next to it (from the page cache).
func (r *Resolver) matchesBeyond(ctx context.Context, n int, unique bool, f solver.Filter, cursor solver.Placement, direction store.Direction) (bool, error) {
	if listedUnder(f, cursor, unique) {
		return true, nil
	}
	page, err := r.page(ctx, r.solver, SourceSolver, store.PageRequest{N: n, Unique: unique, Direction: direction, Cursor: cursor, Limit: 1}, f)
	return len(page) > 0, err
}

// listedUnder reports whether p is an item of a listing under f: p
// matches it, or (unique) a member of p's class does.
func listedUnder(f solver.Filter, p solver.Placement, unique bool) bool {
	if !unique {
		return f.Matches(p)
	}
	for _, img := range solver.Images(p) {
		if f.Matches(img.Placement) {
			return true
		}
	}
	return false
}
