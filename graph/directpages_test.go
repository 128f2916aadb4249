package graph_test

import (
	"bytes"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// directShapes are page queries graph.DirectPages answers itself: every
// field it writes, aliases, __typename, and the arguments as literals and
// as variables.
var directShapes = []string{
	`query Page($n: Int!, $first: Int, $after: String, $last: Int, $before: String) {
	  solutions(n: $n, first: $first, after: $after, last: $last, before: $before) {
	    totalCount edges { cursor node { placement } } pageInfo { hasNextPage endCursor } } }`,
	`query Page($n: Int!, $first: Int, $after: String, $last: Int, $before: String) {
	  page: uniqueSolutions(n: $n, first: $first, after: $after, last: $last, before: $before) {
	    __typename source total: totalCount
	    pageInfo { __typename startCursor hasPreviousPage hasNextPage endCursor }
	    edges { __typename at: cursor node { __typename id n compact isCanonical orbitSize rank uniqueRank placement cols: placement } } } }`,
	`query Page($n: Int!, $first: Int, $after: String, $last: Int, $before: String) {
	  solutions(n: $n, first: $first, after: $after, last: $last, before: $before) {
	    edges { node { rank uniqueRank } cursor } pageInfo { startCursor } totalCount } }`,
}

// gqlgenShapes are page queries DirectPages leaves to gqlgen: the two
// servers must still agree, and the direct one must not claim them.
var gqlgenShapes = []string{
	`query Page($n: Int!, $first: Int) { solutions(n: $n, first: $first) { edges { node { svg(size: 32) } } } }`,
	`query Page($n: Int!, $first: Int) { solutions(n: $n, first: $first) { ...C } } fragment C on SolutionConnection { totalCount }`,
	`query Page($n: Int!, $first: Int) { solutions(n: $n, first: $first) { totalCount @include(if: true) } }`,
	`query Page($n: Int!, $first: Int) { solutions(n: $n, first: $first, where: {empty: ["a1"]}) { totalCount edges { cursor } } }`,
	`query Page($n: Int!, $first: Int) { solutions(n: $n, first: $first) { totalCount } count(n: $n) { total } }`,
	`query Page($n: Int!, $first: Int) { solutions(n: $n, first: $first) { edges { node { rows canonical { placement } } } } }`,
}

// TestDirectPagesAnswerAsGqlgen sends the same requests to a server
// answering pages directly and to one answering everything through gqlgen,
// over the stored boards of both backends and over the solver: the bodies
// are equal byte for byte, for valid pages (forward, backward, bounded on
// both sides, empty, past the end) and for requests gqlgen refuses.
func TestDirectPagesAnswerAsGqlgen(t *testing.T) {
	t.Parallel()
	off := func(c *server.Config) { c.DirectPages = false }
	noCaches := func(c *server.Config) { c.AnswerCacheBytes, c.Graph.PageCacheBytes = 0, 0 }
	compare := func(t *testing.T, direct, viaGqlgen *apitest.Bundle) {
		// Cursors of N=8 from the listing itself: the 3rd and the 30th.
		all := direct.Page(t, "solutions", 8, map[string]any{"first": 40})
		c3, c30 := all.Edges[2].Cursor, all.Edges[29].Cursor
		u := direct.Page(t, "uniqueSolutions", 8, map[string]any{"first": 12})
		u2 := u.Edges[1].Cursor
		variables := []map[string]any{
			{"n": 8},
			{"n": 8, "first": 5},
			{"n": 8, "first": 5, "after": c3},
			{"n": 8, "last": 4, "before": c30},
			{"n": 8, "first": 100, "after": c3, "before": c30},
			{"n": 8, "last": 3},
			{"n": 8, "first": 0},
			{"n": 10, "first": 7, "after": c3},  // a cursor of another N
			{"n": 8, "first": 2, "after": u2},   // of the other listing, or not
			{"n": 8, "first": -1},               // refused
			{"n": 8, "first": 2, "last": 2},     // refused
			{"n": 40, "first": 2},               // no such board
			{"n": 8, "first": 2, "after": "no"}, // not a cursor
			{"n": 1, "first": 3},
			{"n": 3, "first": 3},
			{"n": 12, "first": 20, "after": nil},
		}
		before := direct.Server.DirectPageAnswers()
		for i, q := range append(directShapes, gqlgenShapes...) {
			for _, v := range variables {
				req := apitest.Request{Query: q, OperationName: "Page", Variables: v}
				a, b := direct.Post(t, req), viaGqlgen.Post(t, req)
				if a.Status != b.Status || !bytes.Equal(a.Raw, b.Raw) {
					t.Errorf("shape %d, variables %v:\ndirect %d %s\ngqlgen %d %s", i, v, a.Status, a.Raw, b.Status, b.Raw)
				}
			}
			if i == len(directShapes)-1 {
				// Each direct shape was answered directly for the valid
				// variables at least (the rest went to gqlgen for its
				// errors).
				if got := direct.Server.DirectPageAnswers() - before; got < int64(len(directShapes)*8) {
					t.Errorf("%d requests answered directly, want at least %d", got, len(directShapes)*8)
				}
				before = direct.Server.DirectPageAnswers()
			}
		}
		if got := direct.Server.DirectPageAnswers() - before; got != 0 {
			t.Errorf("%d requests of shapes left to gqlgen were answered directly", got)
		}
		if viaGqlgen.Server.DirectPageAnswers() != 0 {
			t.Error("the server with DirectPages off answered directly")
		}
	}
	t.Run("solver", func(t *testing.T) {
		t.Parallel()
		compare(t, apitest.Setup(t, noCaches), apitest.Setup(t, noCaches, off))
	})
	eachBackend(t, func(t *testing.T, db database) {
		st := db.open(t)
		for _, n := range []int{1, 3, 8, 10, 12} {
			fill(t, st, n, nil)
		}
		compare(t, serve(t, st, noCaches), serve(t, st, noCaches, off))
	})
}

// TestDirectPagesLeaveRefusalsToGqlgen: a page of the direct shape refused
// before it runs (over the complexity or depth limit) is answered with its
// error, not written.
func TestDirectPagesLeaveRefusalsToGqlgen(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.ComplexityLimit = 50; c.DepthLimit = 3 })
	for _, tt := range []struct{ query, reason string }{
		{`{ solutions(n: 8, first: 100) { edges { cursor } } }`, "COMPLEXITY_LIMIT_EXCEEDED"},
		{`{ solutions(n: 8, first: 1) { edges { node { placement } } } }`, "DEPTH_LIMIT_EXCEEDED"},
	} {
		r := b.Post(t, apitest.Request{Query: tt.query})
		if r.Code() != "BAD_USER_INPUT" || r.Reason() != tt.reason || len(r.Data) > 0 && string(r.Data) != "null" {
			t.Errorf("%s: %d %s; want BAD_USER_INPUT, %s, no data", tt.query, r.Status, r.Raw, tt.reason)
		}
	}
	if n := b.Server.DirectPageAnswers(); n != 0 {
		t.Errorf("%d refused requests answered directly", n)
	}
}
