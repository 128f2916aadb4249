package graph_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/solver"
)

// TestPrecomputeCount counts N=11 under a filter through the real server
// and the real precompute engine and workers over a real store, on both
// backends: precomputeCount needs the admin token and a square, asking
// again changes nothing, and once the count is done count(n, where)
// answers it from the store (source STORE), equal to brute force, also
// when the filter's squares come in another order.
func TestPrecomputeCount(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const token = "count-token"
			api, j := setupEngine(t, backend, token)

			const n = 11
			f := solver.Filter{Queens: []solver.Square{{Row: 2, Col: 5}}, Empty: []solver.Square{{Row: 7, Col: 1}, {Row: 0, Col: 0}}}
			var want uint64
			for p := range solver.All(n) {
				if f.Matches(p) {
					want++
				}
			}
			wantCounts, err := solver.CountFiltered(t.Context(), n, f, solver.CountOptions{})
			if err != nil || wantCounts.Total != want {
				t.Fatalf("CountFiltered = %+v, %v; brute force %d", wantCounts, err, want)
			}
			where := func(f solver.Filter) map[string]any {
				sq := func(s []solver.Square) []map[string]int {
					out := []map[string]int{}
					for _, x := range s {
						out = append(out, map[string]int{"row": x.Row, "col": x.Col})
					}
					return out
				}
				return map[string]any{"queens": sq(f.Queens), "empty": sq(f.Empty)}
			}
			type filteredCount struct {
				N                       int
				Filter, State           string
				Total, Unique           *string
				ChunksDone, ChunksTotal int
			}
			mutation := `mutation($n: Int!, $where: SolutionFilter!) { precomputeCount(n: $n, where: $where) { n filter state total unique chunksDone chunksTotal } }`
			ask := func(n int, w map[string]any, header ...string) (*apitest.Response, filteredCount) {
				t.Helper()
				r := api.Post(t, apitest.Request{Query: mutation, Variables: map[string]any{"n": n, "where": w}}, header...)
				var data struct{ PrecomputeCount *filteredCount }
				if len(r.Data) > 0 {
					if err := json.Unmarshal(r.Data, &data); err != nil {
						t.Fatal(err)
					}
				}
				if data.PrecomputeCount == nil {
					return r, filteredCount{}
				}
				return r, *data.PrecomputeCount
			}
			auth := []string{"Authorization", "Bearer " + token}

			if r, _ := ask(n, where(f)); r.Code() != "UNAUTHENTICATED" {
				t.Errorf("without the token: %s, want UNAUTHENTICATED", r.Raw)
			}
			if r, _ := ask(n, where(f), "Authorization", "Bearer wrong"); r.Code() != "UNAUTHENTICATED" {
				t.Errorf("with a wrong token: %s, want UNAUTHENTICATED", r.Raw)
			}
			if r, _ := ask(n, map[string]any{}, auth...); r.Code() != "BAD_USER_INPUT" {
				t.Errorf("an empty filter: %s, want BAD_USER_INPUT", r.Raw)
			}
			if r, _ := ask(n, map[string]any{"queens": []map[string]int{{"row": n, "col": 0}}}, auth...); r.Code() != "BAD_USER_INPUT" {
				t.Errorf("a square off the board: %s, want BAD_USER_INPUT", r.Raw)
			}
			r, fc := ask(n, where(f), auth...)
			if len(r.Errors) > 0 || fc.State != "RUNNING" || fc.Filter != f.Key() || fc.Total != nil || fc.ChunksTotal < 1 {
				t.Fatalf("precomputeCount: %s", r.Raw)
			}
			if err := j.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Shutdown() })
			// Asked again, in another order of its squares: the same count.
			reordered := solver.Filter{Queens: f.Queens, Empty: []solver.Square{f.Empty[1], f.Empty[0], f.Empty[1]}}
			eventually.True(t, 3*time.Minute, func() string {
				r, fc = ask(n, where(reordered), auth...)
				if len(r.Errors) > 0 || fc.State != "DONE" {
					return string(r.Raw)
				}
				return ""
			})
			if fc.Filter != f.Key() || fc.Total == nil || *fc.Total != strconv.FormatUint(want, 10) ||
				fc.Unique == nil || *fc.Unique != strconv.FormatUint(wantCounts.Unique, 10) || fc.ChunksDone != fc.ChunksTotal {
				t.Errorf("done: %+v; want filter %q, total %d, unique %d", fc, f.Key(), want, wantCounts.Unique)
			}
			var data struct {
				Count struct {
					Total, Unique *string
					Source        *string
				}
			}
			api.Query(t, `query($n: Int!, $where: SolutionFilter) { count(n: $n, where: $where) { total unique source } }`,
				map[string]any{"n": n, "where": where(reordered)}, &data)
			c := data.Count
			if c.Total == nil || *c.Total != fmt.Sprint(want) || c.Unique == nil || *c.Unique != fmt.Sprint(wantCounts.Unique) ||
				c.Source == nil || *c.Source != "STORE" {
				t.Errorf("count(n: %d, where): %+v; want total %d, unique %d from the STORE", n, c, want, wantCounts.Unique)
			}
			var conns struct {
				Solutions, UniqueSolutions struct{ TotalCount *string }
			}
			api.Query(t, `query($n: Int!, $where: SolutionFilter) { solutions(n: $n, first: 1, where: $where) { totalCount }
				uniqueSolutions(n: $n, first: 1, where: $where) { totalCount } }`, map[string]any{"n": n, "where": where(f)}, &conns)
			if tc := conns.Solutions.TotalCount; tc == nil || *tc != fmt.Sprint(want) {
				t.Errorf("solutions(where).totalCount = %v, want %d", tc, want)
			}
			if tc := conns.UniqueSolutions.TotalCount; tc == nil || *tc != fmt.Sprint(wantCounts.Unique) {
				t.Errorf("uniqueSolutions(where).totalCount = %v, want %d", tc, wantCounts.Unique)
			}
		})
	}
}
