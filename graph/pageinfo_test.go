package graph_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/solver"
)

// TestFilteredPageInfoIsExact: under a filter, the flag of the direction
// not paged says whether matching items lie at or beyond the cursor (the
// schema's "whether solutions precede the page"), not merely that a
// cursor was given. Cursors come from the unfiltered listing (any item of
// the board), the oracle is the solver's filtered enumeration.
func TestFilteredPageInfoIsExact(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	const n = 8
	for _, unique := range []bool{false, true} {
		field := "solutions"
		if unique {
			field = "uniqueSolutions"
		}
		full := b.Page(t, field, n, map[string]any{"first": 100})
		for _, col := range []int{0, 3, 7} {
			f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: col}}}
			var listed []solver.Placement
			for p := range solver.Matching(n, f, unique) {
				listed = append(listed, p.Clone())
			}
			for _, i := range []int{0, len(full.Edges) / 2, len(full.Edges) - 1} {
				cursor := solver.Placement(full.Edges[i].Node.Placement)
				atOrBefore := slices.ContainsFunc(listed, func(p solver.Placement) bool { return p.Compare(cursor) <= 0 })
				atOrAfter := slices.ContainsFunc(listed, func(p solver.Placement) bool { return p.Compare(cursor) >= 0 })
				what := fmt.Sprintf("%s(n: %d, where: q0.%d) from %v", field, n, col, cursor)

				fwd := filteredPageInfo(t, b, field, n, col, map[string]any{"first": 2, "after": full.Edges[i].Cursor})
				if fwd.HasPreviousPage != atOrBefore {
					t.Errorf("%s, after: hasPreviousPage %t, want %t", what, fwd.HasPreviousPage, atOrBefore)
				}
				back := filteredPageInfo(t, b, field, n, col, map[string]any{"last": 2, "before": full.Edges[i].Cursor})
				if back.HasNextPage != atOrAfter {
					t.Errorf("%s, before: hasNextPage %t, want %t", what, back.HasNextPage, atOrAfter)
				}
			}
		}
	}
}

func filteredPageInfo(t *testing.T, b *apitest.Bundle, field string, n, col int, args map[string]any) apitest.PageInfo {
	t.Helper()
	vars := map[string]any{"n": n, "col": col}
	for k, v := range args {
		vars[k] = v
	}
	q := fmt.Sprintf(`query($n: Int!, $col: Int!, $first: Int, $after: String, $last: Int, $before: String) {
		c: %s(n: $n, first: $first, after: $after, last: $last, before: $before, where: {queens: [{row: 0, col: $col}]}) {
			pageInfo { hasNextPage hasPreviousPage } } }`, field)
	var data struct {
		C struct{ PageInfo apitest.PageInfo }
	}
	b.Query(t, q, vars, &data)
	return data.C.PageInfo
}
