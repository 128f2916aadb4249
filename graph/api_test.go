package graph_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// These tests run the real server (httptest, real handler, real HTTP
// requests) without a store: every page comes from the solver.

type connection = apitest.Connection

func page(t *testing.T, b *apitest.Bundle, field string, n int, args map[string]any) connection {
	t.Helper()
	return b.Page(t, field, n, args)
}

func uint64Of(t *testing.T, s *string) uint64 {
	t.Helper()
	return apitest.Uint64(t, s)
}

// The N=8 listings: the same scenarios run against the stored path in
// store_test.go.

func TestPageAllSolutionsOfN8(t *testing.T) {
	t.Parallel()
	apitest.CheckPageAllN8(t, apitest.Setup(t), "SOLVER")
}

func TestUniqueSolutionsOfN8(t *testing.T) {
	t.Parallel()
	apitest.CheckUniqueN8(t, apitest.Setup(t), "SOLVER")
}

func TestSolutionAtAgreesWithPaging(t *testing.T) {
	t.Parallel()
	apitest.CheckSolutionAtN8(t, apitest.Setup(t))
}

func TestCounts(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	ref := oeis.MustLoad(t)
	var q strings.Builder
	q.WriteString("{")
	for n := 1; n <= 12; n++ {
		fmt.Fprintf(&q, " c%d: count(n: %d) { n total unique classes { orbit1 orbit2 orbit4 orbit8 } source state }", n, n)
	}
	q.WriteString(" big: count(n: 20) { n total unique classes { orbit8 } source state board { state pagesSource } } }")
	type classes struct{ Orbit1, Orbit2, Orbit4, Orbit8 *string }
	type count struct {
		N             int
		Total, Unique *string
		Classes       *classes
		Source        *string
		State         string
		Board         struct{ State, PagesSource string }
	}
	var data map[string]count
	b.Query(t, q.String(), nil, &data)
	for n := 1; n <= 12; n++ {
		c, r := data["c"+strconv.Itoa(n)], ref[n]
		if uint64Of(t, c.Total) != r.Total || uint64Of(t, c.Unique) != r.Unique ||
			uint64Of(t, c.Classes.Orbit1) != r.OrbitOfSingle || uint64Of(t, c.Classes.Orbit2) != r.Orbit2 ||
			uint64Of(t, c.Classes.Orbit4) != r.Orbit4 || uint64Of(t, c.Classes.Orbit8) != r.Orbit8 {
			t.Errorf("count(n: %d) = %+v, reference %+v", n, c, r)
		}
		if *c.Source != "SOLVER" || c.State != "UNKNOWN" {
			t.Errorf("count(n: %d): source %s, state %s; want SOLVER, UNKNOWN without a store", n, *c.Source, c.State)
		}
	}
	big := data["big"]
	if big.Total != nil || big.Unique != nil || big.Classes != nil || big.Source != nil || big.State != "UNKNOWN" || big.Board.PagesSource != "SOLVER" {
		t.Errorf("count(n: 20) without a store: %+v; want unknown counts, state UNKNOWN", big)
	}
}

func TestBoardBeyondCountLimitPagesFromSolver(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	// N=20: not counted on the spot (above 15), not ranked by walking
	// (above 14), yet paged forward and backward.
	c := page(t, b, "solutions", 20, map[string]any{"first": 3})
	if c.TotalCount != nil || c.Source != "SOLVER" || len(c.Edges) != 3 || !c.PageInfo.HasNextPage {
		t.Fatalf("N=20 first page: %+v", c)
	}
	for _, e := range c.Edges {
		if err := solver.ValidateN(20, e.Node.Placement); err != nil || e.Node.Rank != nil {
			t.Fatalf("N=20 edge %+v: %v (rank should be null)", e.Node, err)
		}
	}
	next := page(t, b, "solutions", 20, map[string]any{"first": 2, "after": c.Edges[1].Cursor})
	if !slices.Equal(next.Edges[0].Node.Placement, c.Edges[2].Node.Placement) {
		t.Fatalf("after edge 1 comes %v, want edge 2 %v", next.Edges[0].Node.Placement, c.Edges[2].Node.Placement)
	}
	prev := page(t, b, "solutions", 20, map[string]any{"last": 2, "before": c.Edges[2].Cursor})
	if !slices.EqualFunc([][]int{prev.Edges[0].Node.Placement, prev.Edges[1].Node.Placement},
		[][]int{c.Edges[0].Node.Placement, c.Edges[1].Node.Placement}, slices.Equal) || prev.PageInfo.HasPreviousPage {
		t.Fatalf("before edge 2: %+v", prev)
	}
	r := b.Post(t, apitest.Request{Query: `{ solutionAt(n: 20, rank: 5) { n } }`})
	if r.Code() != "UNAVAILABLE" || !strings.Contains(r.Message(), "precomputed") {
		t.Fatalf("solutionAt on N=20 without a store: %s", r.Raw)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	type result struct {
		Valid    bool
		N        int
		Message  string
		Conflict *struct {
			RowA, RowB, ColA, ColB int
			Kind, Message          string
		}
	}
	var data map[string]result
	b.Query(t, `{
		ok: validate(placement: [1, 3, 0, 2]) { valid n message conflict { rowA } }
		col: validate(placement: [0, 2, 4, 1, 0], n: 5) { valid n message conflict { rowA rowB colA colB kind message } }
		diag: validate(placement: [0, 3, 1, 2]) { valid n message conflict { rowA rowB colA colB kind message } }
		anti: validate(placement: [1, 0, 2]) { valid n message conflict { rowA rowB colA colB kind message } }
	}`, nil, &data)
	if ok := data["ok"]; !ok.Valid || ok.N != 4 || ok.Conflict != nil || !strings.Contains(ok.Message, "valid") {
		t.Errorf("validate [1,3,0,2]: %+v", ok)
	}
	for name, want := range map[string]struct {
		rowA, rowB, colA, colB int
		kind                   string
	}{
		"col":  {0, 4, 0, 0, "COLUMN"},
		"diag": {2, 3, 1, 2, "DIAGONAL"},
		"anti": {0, 1, 1, 0, "ANTI_DIAGONAL"},
	} {
		r := data[name]
		c := r.Conflict
		if r.Valid || c == nil || c.RowA != want.rowA || c.RowB != want.rowB || c.ColA != want.colA || c.ColB != want.colB ||
			c.Kind != want.kind || c.Message == "" || r.Message != c.Message {
			t.Errorf("validate %s: %+v %+v, want %+v", name, r, c, want)
		}
	}
	// The reference: the solver's own verdict on the same placements.
	if err := solver.Validate(solver.Placement{0, 3, 1, 2}); err.(*solver.Conflict).RowB != 3 {
		t.Errorf("solver disagrees: %v", err)
	}
}

func TestNodeRoundTrip(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	c := page(t, b, "solutions", 6, map[string]any{"first": 10})
	for _, e := range c.Edges {
		var data struct {
			Node struct {
				Typename  string `json:"__typename"`
				ID        string
				Placement []int
				Rank      string
			}
		}
		b.Query(t, `query($id: ID!) { node(id: $id) { __typename id ... on Solution { placement rank } } }`,
			map[string]any{"id": e.Node.ID}, &data)
		if data.Node.Typename != "Solution" || data.Node.ID != e.Node.ID || !slices.Equal(data.Node.Placement, e.Node.Placement) ||
			data.Node.Rank != *e.Node.Rank {
			t.Fatalf("node(%s) = %+v, want %+v", e.Node.ID, data.Node, e.Node)
		}
	}
	var board struct {
		Board struct{ ID string }
		Node  struct {
			Typename string `json:"__typename"`
			N        int
			Total    string
		}
	}
	b.Query(t, `{ board(n: 6) { id } }`, nil, &board)
	b.Query(t, `query($id: ID!) { board(n: 6) { id } node(id: $id) { __typename ... on Board { n total } } }`,
		map[string]any{"id": board.Board.ID}, &board)
	if board.Node.Typename != "Board" || board.Node.N != 6 || board.Node.Total != strconv.FormatUint(oeis.MustLoad(t)[6].Total, 10) {
		t.Fatalf("node(board id) = %+v", board.Node)
	}
}

func TestSymmetries(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	var data struct {
		S struct {
			Placement  []int
			OrbitSize  int
			Canonical  struct{ Placement []int }
			Symmetries []struct {
				Symmetry, Name string
				Placement      []int
				IsSame         bool
				Solution       struct{ Placement []int }
			}
		}
	}
	// [1,3,0,2] is unchanged by a quarter turn: a class of 2.
	b.Query(t, `{ s: solution(placement: [2, 0, 3, 1]) { placement orbitSize canonical { placement }
		symmetries { symmetry name placement isSame solution { placement } } } }`, nil, &data)
	s := data.S
	if s.OrbitSize != 2 || !slices.Equal(s.Canonical.Placement, []int{1, 3, 0, 2}) || len(s.Symmetries) != 8 {
		t.Fatalf("solution [2,0,3,1]: %+v", s)
	}
	for i, im := range s.Symmetries {
		want := solver.Symmetries[i].Apply(solver.Placement{2, 0, 3, 1})
		if im.Name != solver.Symmetries[i].String() || !slices.Equal(im.Placement, want) ||
			!slices.Equal(im.Solution.Placement, want) || im.IsSame != slices.Equal(want, []int{2, 0, 3, 1}) {
			t.Errorf("image %d: %+v, want %s %v", i, im, solver.Symmetries[i], want)
		}
	}
}

// cursor builds a cursor by hand, as a client forging one would.
func cursor(b ...byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestBadInputs(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.MaxBodyBytes = 64 << 10 })
	ref := oeis.MustLoad(t)

	// Real cursors of other listings.
	n6 := page(t, b, "solutions", 6, map[string]any{"first": 1}).Edges[0].Cursor
	u8 := page(t, b, "uniqueSolutions", 8, map[string]any{"first": 1}).Edges[0].Cursor
	a8 := page(t, b, "solutions", 8, map[string]any{"first": 3}).Edges[2].Cursor // not canonical
	good8 := []byte{1, 0, 8, 0, 4, 7, 5, 2, 6, 1, 3}

	deep := "{ solutionAt(n: 8, rank: 1) { " + strings.Repeat("canonical { ", 10) + "n" + strings.Repeat(" }", 10) + " } }"
	complex := `{ solutions(n: 8, first: 1000) { edges { node { symmetries { solution { symmetries { placement } } } } } } }`

	const bad, validation, parse = "BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED"
	tests := []struct {
		name   string
		query  string
		vars   map[string]any
		raw    string // a raw POST body instead of query
		status int
		code   string
		reason string
		says   string // part of the message
	}{
		{name: "n zero", query: `{ solutions(n: 0) { totalCount } }`, code: bad, says: "from 1 to 32"},
		{name: "n negative", query: `{ board(n: -3) { n } }`, code: bad, says: "got -3"},
		{name: "n 33", query: `{ uniqueSolutions(n: 33) { totalCount } }`, code: bad, says: "from 1 to 32"},
		{name: "huge n", query: `{ count(n: 1000000) { total } }`, code: bad},
		{name: "n past 32 bits", query: `{ count(n: 99999999999) { total } }`, code: bad, says: "outside Int's range; an Int is a whole number from -2147483648 to 2147483647"},
		{name: "n not an int", query: `query($n: Int!) { count(n: $n) { total } }`, vars: map[string]any{"n": "eight"}, status: 400, code: validation},
		{name: "first negative", query: `{ solutions(n: 8, first: -1) { totalCount } }`, code: bad, says: "from 0 to 1000"},
		{name: "first over max", query: `{ solutions(n: 8, first: 1001) { totalCount } }`, code: bad, says: "from 0 to 1000"},
		{name: "last over max", query: `{ solutions(n: 8, last: 5000) { totalCount } }`, code: bad, says: "from 0 to 1000"},
		{name: "first and last", query: `{ solutions(n: 8, first: 2, last: 2) { totalCount } }`, code: bad, says: "not both"},
		{name: "cursor garbage", query: `{ solutions(n: 8, after: "not a cursor!") { totalCount } }`, code: bad, says: "after"},
		{name: "cursor empty", query: `{ solutions(n: 8, before: "") { totalCount } }`, code: bad, says: "before"},
		{name: "cursor too long", query: fmt.Sprintf(`{ solutions(n: 8, after: %q) { totalCount } }`, strings.Repeat("A", 500)), code: bad},
		{name: "cursor of another N", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": n6}, code: bad, says: "N=6"},
		{name: "cursor of the unique listing", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": u8}, code: bad, says: "uniqueSolutions"},
		{name: "cursor of the full listing", query: `query($c: String) { uniqueSolutions(n: 8, before: $c) { totalCount } }`, vars: map[string]any{"c": a8}, code: bad, says: "belongs to the solutions listing"},
		{name: "cursor wrong version", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": cursor(append([]byte{2}, good8[1:]...)...)}, code: bad, says: "version"},
		{name: "cursor unknown kind", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": cursor(append([]byte{1, 7}, good8[2:]...)...)}, code: bad},
		{name: "cursor short", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": cursor(good8[:7]...)}, code: bad, says: "N=8"},
		{name: "cursor column off board", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": cursor(1, 0, 8, 0, 4, 7, 5, 2, 6, 1, 9)}, code: bad, says: "solution"},
		{name: "cursor not a solution", query: `query($c: String) { solutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": cursor(1, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7)}, code: bad, says: "solution"},
		{name: "cursor not canonical", query: `query($c: String) { uniqueSolutions(n: 8, after: $c) { totalCount } }`, vars: map[string]any{"c": cursor(1, 1, 8, 0, 6, 3, 5, 7, 1, 4, 2)}, code: bad, says: "canonical"},
		{name: "rank zero", query: `{ solutionAt(n: 8, rank: 0) { n } }`, code: bad, says: "from 1"},
		{name: "rank negative", query: `{ solutionAt(n: 8, rank: "-1") { n } }`, code: bad, says: "BigInt"},
		{name: "rank not a number", query: `query($r: BigInt!) { solutionAt(n: 8, rank: $r) { n } }`, vars: map[string]any{"r": "ninety"}, code: bad, says: "BigInt"},
		{name: "rank past the end", query: `{ solutionAt(n: 8, rank: "93") { n } }`, code: "NOT_FOUND", says: "92"},
		{name: "validate empty", query: `{ validate(placement: []) { valid } }`, code: bad, says: "empty"},
		{name: "validate column off board", query: `{ validate(placement: [0, 9, 1]) { valid } }`, code: bad, says: "outside"},
		{name: "validate negative column", query: `{ validate(placement: [0, -1, 1]) { valid } }`, code: bad, says: "outside"},
		{name: "validate wrong length", query: `{ validate(placement: [1, 3, 0, 2], n: 5) { valid } }`, code: bad, says: "needs 5 columns"},
		{name: "validate not a list of ints", query: `{ validate(placement: ["a"]) { valid } }`, status: 400, code: validation},
		{name: "solution not a solution", query: `{ solution(placement: [0, 1, 2, 3]) { n } }`, code: bad, says: "not a solution"},
		{name: "solution too large", query: `{ solution(placement: [` + strings.Repeat("0, ", 40) + `0]) { n } }`, code: bad},
		{name: "node garbage", query: `{ node(id: "???") { id } }`, code: bad, says: "id"},
		{name: "node of no solution", query: `query($id: ID!) { node(id: $id) { id } }`, vars: map[string]any{"id": cursor(1, 'S', 4, 0, 1, 2, 3)}, code: "NOT_FOUND"},
		{name: "svg size", query: `{ solutionAt(n: 8, rank: 1) { svg(size: 1) } }`, code: bad, says: "16 to 4096"},
		{name: "unknown state", query: `{ boards(state: DANCING) { n } }`, status: 400, code: validation},
		{name: "precompute without token", query: `mutation { precompute(n: 8) { n } }`, code: "UNAUTHENTICATED", says: "admin token"},
		{name: "too deep", query: deep, status: 400, code: bad, reason: "DEPTH_LIMIT_EXCEEDED"},
		{name: "too complex", query: complex, status: 400, code: bad, reason: "COMPLEXITY_LIMIT_EXCEEDED"},
		{name: "syntax error", query: `{ solutions(n: 8 { totalCount } }`, status: 400, code: parse},
		{name: "body not JSON", raw: `{"query": `, status: 400, code: bad},
		{name: "oversized body", raw: `{"query": "{ count(n: 8) { total } }", "variables": {"pad": "` + strings.Repeat("x", 70<<10) + `"}}`, status: 413, code: bad, reason: "BODY_TOO_LARGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *apitest.Response
			if tt.raw != "" {
				r = b.Raw(t, http.MethodPost, b.URL, strings.NewReader(tt.raw), "Content-Type", "application/json")
			} else {
				r = b.Post(t, apitest.Request{Query: tt.query, Variables: tt.vars})
			}
			status := tt.status
			if status == 0 {
				status = http.StatusOK
			}
			if r.Status != status || r.Code() != tt.code || r.Reason() != tt.reason || !strings.Contains(r.Message(), tt.says) {
				t.Errorf("status %d, code %q, reason %q; want %d, %q, %q, a message with %q\n%s",
					r.Status, r.Code(), r.Reason(), status, tt.code, tt.reason, tt.says, r.Raw)
			}
			// The server answers the next good query.
			var data struct{ Count struct{ Total string } }
			b.Query(t, `{ count(n: 4) { total } }`, nil, &data)
			if data.Count.Total != strconv.FormatUint(ref[4].Total, 10) {
				t.Errorf("after the bad input, count(4) = %s", data.Count.Total)
			}
		})
	}
	if logs := b.Logs.String(); strings.Contains(logs, "internal error") || strings.Contains(logs, "panic") {
		t.Errorf("bad inputs made internal errors:\n%s", logs)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.RequestTimeout = 30 * time.Millisecond })
	// Walking to the 365,000th of N=14's 365,596 solutions takes ~0.25 s.
	r := b.Post(t, apitest.Request{Query: `{ solutionAt(n: 14, rank: "365000") { placement } }`})
	if r.Status != http.StatusOK || r.Code() != "TIMEOUT" || !strings.Contains(r.Message(), "time budget") {
		t.Fatalf("a walk past the time budget: status %d: %s", r.Status, r.Raw)
	}
	// The server answers again once the abandoned walk has given back its
	// solver slot; a loaded machine may need a few tries at this budget.
	want := strconv.FormatUint(oeis.MustLoad(t)[5].Total, 10)
	var last string
	for range 50 {
		r := b.Post(t, apitest.Request{Query: `{ count(n: 5) { total } }`})
		var data struct {
			Data struct{ Count struct{ Total string } }
		}
		if err := json.Unmarshal(r.Raw, &data); err == nil && data.Data.Count.Total == want {
			return
		}
		last = string(r.Raw)
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("after the timeout, count(5) never answered %s: last %s", want, last)
}

// TestAbandonedSearchStops: a solver search past its time budget stops
// and frees its slot. The last unique page of N=32 takes far longer than
// any budget; with one solver slot, three such requests in a row each get
// TIMEOUT, and a cheap page right after them still gets the slot (a search
// that ran on after its request gave up would hold it for hours).
func TestAbandonedSearchStops(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) {
		c.RequestTimeout = 200 * time.Millisecond
		c.Graph.SolverSlots = 1
	})
	for i := range 3 {
		start := time.Now()
		r := b.Post(t, apitest.Request{Query: `{ uniqueSolutions(n: 32, last: 1000) { edges { cursor } } }`})
		if r.Code() != "TIMEOUT" || !strings.Contains(r.Message(), "time budget") {
			t.Fatalf("request %d: %s", i, r.Raw)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("request %d answered after %s", i, d)
		}
	}
	c := page(t, b, "solutions", 8, map[string]any{"first": 3})
	if len(c.Edges) != 3 || c.Source != "SOLVER" {
		t.Fatalf("a cheap page after the timeouts: %+v", c)
	}
}
