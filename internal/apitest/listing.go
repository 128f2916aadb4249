package apitest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

// The listing helpers and the N=8 scenarios below run against any server:
// the one without a store (pages from the solver, graph's tests) and the
// ones over a filled store (pages from the store, graph's store_test.go
// tests on Postgres and SQLite). Both must pass the same checks.

// Node is a Solution as ConnFields asks for it.
type Node struct {
	ID          string  `json:"id"`
	N           int     `json:"n"`
	Placement   []int   `json:"placement"`
	Rank        *string `json:"rank"`
	UniqueRank  *string `json:"uniqueRank"`
	IsCanonical bool    `json:"isCanonical"`
	OrbitSize   int     `json:"orbitSize"`
}

// Edge is a connection's edge.
type Edge struct {
	Cursor string `json:"cursor"`
	Node   Node   `json:"node"`
}

// PageInfo is a connection's pageInfo.
type PageInfo struct {
	HasNextPage     bool    `json:"hasNextPage"`
	HasPreviousPage bool    `json:"hasPreviousPage"`
	StartCursor     *string `json:"startCursor"`
	EndCursor       *string `json:"endCursor"`
}

// Connection is a SolutionConnection as ConnFields asks for it.
type Connection struct {
	TotalCount *string  `json:"totalCount"`
	Source     string   `json:"source"`
	Edges      []Edge   `json:"edges"`
	PageInfo   PageInfo `json:"pageInfo"`
}

// ConnFields selects every field of Connection.
const ConnFields = `totalCount source
	edges { cursor node { id n placement rank uniqueRank isCanonical orbitSize } }
	pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`

// Page asks for one page of field (solutions or uniqueSolutions) of N;
// args are the connection's arguments (first, after, last, before).
func (b *Bundle) Page(t testing.TB, field string, n int, args map[string]any) Connection {
	t.Helper()
	vars := map[string]any{"n": n}
	for k, v := range args {
		vars[k] = v
	}
	q := fmt.Sprintf(`query($n: Int!, $first: Int, $after: String, $last: Int, $before: String) {
		c: %s(n: $n, first: $first, after: $after, last: $last, before: $before) { %s } }`, field, ConnFields)
	var data struct{ C Connection }
	b.Query(t, q, vars, &data)
	return data.C
}

// Uint64 reads a BigInt, failing the test on null or garbage.
func Uint64(t testing.TB, s *string) uint64 {
	t.Helper()
	if s == nil {
		t.Fatal("BigInt is null")
	}
	u, err := strconv.ParseUint(*s, 10, 64)
	if err != nil {
		t.Fatalf("BigInt %q: %v", *s, err)
	}
	return u
}

// CheckListing checks a whole listing gathered from pages: strictly
// ascending valid solutions of N, each with its 1-based rank.
func CheckListing(t testing.TB, n int, got []Node, unique bool) {
	t.Helper()
	for i, nd := range got {
		p := solver.Placement(nd.Placement)
		if err := solver.ValidateN(n, p); err != nil {
			t.Fatalf("item %d %v is not a solution of N=%d: %v", i, p, n, err)
		}
		if i > 0 && solver.Placement(got[i-1].Placement).Compare(p) >= 0 {
			t.Fatalf("items %d and %d out of order: %v, %v", i-1, i, got[i-1].Placement, p)
		}
		rank := nd.Rank
		if unique {
			rank = nd.UniqueRank
			if !nd.IsCanonical {
				t.Fatalf("unique item %d %v is not canonical", i, p)
			}
		}
		if r := Uint64(t, rank); r != uint64(i+1) {
			t.Fatalf("item %d %v has rank %d, want %d", i, p, r, i+1)
		}
	}
}

// PageForward gathers a listing in pages of size k from the start,
// checking totalCount, pageInfo, page sizes and, when source is not
// empty, where every page came from.
func (b *Bundle) PageForward(t testing.TB, field string, n, k int, total uint64, source string) []Node {
	t.Helper()
	var all []Node
	args := map[string]any{"first": k}
	for i := 0; ; i++ {
		c := b.Page(t, field, n, args)
		if got := Uint64(t, c.TotalCount); got != total {
			t.Fatalf("totalCount %d, want %d", got, total)
		}
		if source != "" && c.Source != source {
			t.Fatalf("page %d forward came from %s, want %s", i, c.Source, source)
		}
		if c.PageInfo.HasPreviousPage != (i > 0) {
			t.Fatalf("page %d forward: hasPreviousPage %v", i, c.PageInfo.HasPreviousPage)
		}
		last := uint64(len(all)+len(c.Edges)) == total
		if c.PageInfo.HasNextPage == last {
			t.Fatalf("page %d forward (%d items so far): hasNextPage %v", i, len(all)+len(c.Edges), c.PageInfo.HasNextPage)
		}
		if !last && len(c.Edges) != k {
			t.Fatalf("page %d forward has %d items, want %d", i, len(c.Edges), k)
		}
		for _, e := range c.Edges {
			all = append(all, e.Node)
		}
		if *c.PageInfo.StartCursor != c.Edges[0].Cursor || *c.PageInfo.EndCursor != c.Edges[len(c.Edges)-1].Cursor {
			t.Fatalf("page %d: start/end cursors are not the edges' cursors", i)
		}
		if !c.PageInfo.HasNextPage {
			return all
		}
		args["after"] = *c.PageInfo.EndCursor
	}
}

// PageBackward gathers a listing from its end in pages of size k.
func (b *Bundle) PageBackward(t testing.TB, field string, n, k int, total uint64, source string) []Node {
	t.Helper()
	var all []Node
	args := map[string]any{"last": k}
	for i := 0; ; i++ {
		c := b.Page(t, field, n, args)
		if source != "" && c.Source != source {
			t.Fatalf("page %d backward came from %s, want %s", i, c.Source, source)
		}
		if c.PageInfo.HasNextPage != (i > 0) {
			t.Fatalf("page %d backward: hasNextPage %v", i, c.PageInfo.HasNextPage)
		}
		first := uint64(len(all)+len(c.Edges)) == total
		if c.PageInfo.HasPreviousPage == first {
			t.Fatalf("page %d backward: hasPreviousPage %v", i, c.PageInfo.HasPreviousPage)
		}
		if !first && len(c.Edges) != k {
			t.Fatalf("page %d backward has %d items, want %d", i, len(c.Edges), k)
		}
		page := make([]Node, 0, len(c.Edges)+len(all))
		for _, e := range c.Edges {
			page = append(page, e.Node)
		}
		all = append(page, all...)
		if !c.PageInfo.HasPreviousPage {
			return all
		}
		args["before"] = *c.PageInfo.StartCursor
	}
}

// Placements returns the nodes' placements.
func Placements(nodes []Node) [][]int {
	out := make([][]int, len(nodes))
	for i, n := range nodes {
		out[i] = n.Placement
	}
	return out
}

// CheckPageAllN8 pages all 92 solutions of N=8 forward in pages of 7 and
// backward in pages of 5: the same listing as the solver's, valid, ordered,
// ranked, with pageInfo right at both ends, every page from source.
func CheckPageAllN8(t *testing.T, b *Bundle, source string) {
	t.Helper()
	ref := oeis.MustLoad(t)[8]
	fwd := b.PageForward(t, "solutions", 8, 7, ref.Total, source)
	bwd := b.PageBackward(t, "solutions", 8, 5, ref.Total, source)
	if uint64(len(fwd)) != ref.Total {
		t.Fatalf("paged %d solutions forward, want %d", len(fwd), ref.Total)
	}
	CheckListing(t, 8, fwd, false)
	CheckListing(t, 8, bwd, false)
	if !slices.EqualFunc(Placements(fwd), Placements(bwd), slices.Equal) {
		t.Fatal("forward and backward paging list different solutions")
	}
	var want [][]int
	for p := range solver.All(8) {
		want = append(want, slices.Clone(p))
	}
	if !slices.EqualFunc(Placements(fwd), want, slices.Equal) {
		t.Fatal("the pages differ from the solver's listing")
	}
}

// CheckUniqueN8 pages the unique solutions of N=8 both ways: 12 classes
// whose orbit sizes add up to 92.
func CheckUniqueN8(t *testing.T, b *Bundle, source string) {
	t.Helper()
	ref := oeis.MustLoad(t)[8]
	fwd := b.PageForward(t, "uniqueSolutions", 8, 5, ref.Unique, source)
	bwd := b.PageBackward(t, "uniqueSolutions", 8, 7, ref.Unique, source)
	CheckListing(t, 8, fwd, true)
	if !slices.EqualFunc(Placements(fwd), Placements(bwd), slices.Equal) {
		t.Fatal("forward and backward paging list different classes")
	}
	var members uint64
	for _, nd := range fwd {
		members += uint64(nd.OrbitSize)
	}
	if uint64(len(fwd)) != ref.Unique || members != ref.Total {
		t.Fatalf("%d classes with %d members, want %d classes with %d", len(fwd), members, ref.Unique, ref.Total)
	}
	// The whole listing in one page.
	c := b.Page(t, "uniqueSolutions", 8, map[string]any{"first": 100})
	if len(c.Edges) != int(ref.Unique) || c.PageInfo.HasNextPage || c.PageInfo.HasPreviousPage {
		t.Fatalf("one page of 100: %d edges, pageInfo %+v", len(c.Edges), c.PageInfo)
	}
}

// CheckSolutionAtN8 checks that solutionAt(n: 8, rank: k) is the k-th
// item of the listing paged in one page, all and unique, and that a rank
// past the end is NOT_FOUND.
func CheckSolutionAtN8(t *testing.T, b *Bundle) {
	t.Helper()
	ref := oeis.MustLoad(t)[8]
	for _, unique := range []bool{false, true} {
		field, total := "solutions", ref.Total
		if unique {
			field, total = "uniqueSolutions", ref.Unique
		}
		c := b.Page(t, field, 8, map[string]any{"first": 1000})
		if uint64(len(c.Edges)) != total {
			t.Fatalf("%s: %d edges, want %d", field, len(c.Edges), total)
		}
		// One request with an alias per rank.
		var q strings.Builder
		q.WriteString("{")
		for k := 1; k <= len(c.Edges); k++ {
			fmt.Fprintf(&q, " r%d: solutionAt(n: 8, rank: \"%d\", unique: %v) { placement rank uniqueRank }", k, k, unique)
		}
		q.WriteString(" }")
		var data map[string]Node
		b.Query(t, q.String(), nil, &data)
		for k, e := range c.Edges {
			got := data["r"+strconv.Itoa(k+1)]
			if !slices.Equal(got.Placement, e.Node.Placement) {
				t.Fatalf("%s: solutionAt(rank: %d) = %v, edge %d is %v", field, k+1, got.Placement, k+1, e.Node.Placement)
			}
			rank := got.Rank
			if unique {
				rank = got.UniqueRank
			}
			if Uint64(t, rank) != uint64(k+1) {
				t.Fatalf("%s: solutionAt(rank: %d) says its rank is %s", field, k+1, *rank)
			}
			if !unique && Uint64(t, got.Rank) != Uint64(t, e.Node.Rank) {
				t.Fatalf("rank of %v: %s from solutionAt, %s from the page", got.Placement, *got.Rank, *e.Node.Rank)
			}
		}
	}
	// Past the end.
	r := b.Post(t, Request{Query: fmt.Sprintf(`{ solutionAt(n: 8, rank: "%d") { n } }`, ref.Total+1)})
	if r.Code() != "NOT_FOUND" || !strings.Contains(r.Message(), strconv.FormatUint(ref.Total, 10)) {
		t.Fatalf("rank past the end: %s", r.Raw)
	}
}
