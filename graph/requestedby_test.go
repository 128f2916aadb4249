package graph_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
)

// TestPrecomputeRequestedBy asks for boards through the real server and
// the real precompute engine over a real store, on both backends (no
// worker runs: the boards stay pending): the first requestedBy is the
// board's, in the mutation's answer and in board and boards; asking again
// by another name changes nothing; a board asked for without a name
// has requestedBy null, as an unknown board has; a bad name is
// BAD_USER_INPUT saying what is allowed, and changes nothing.
func TestPrecomputeRequestedBy(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			const token = "requested-by-token"
			api, _ := setupEngine(t, backend, token)
			type board struct {
				N           int
				State       string
				RequestedBy *string
			}
			ask := func(n int, name any) *apitest.Response {
				t.Helper()
				return api.Post(t, apitest.Request{
					Query:     `mutation($n: Int!, $by: String) { precompute(n: $n, requestedBy: $by) { n state requestedBy } }`,
					Variables: map[string]any{"n": n, "by": name},
				}, "Authorization", "Bearer "+token)
			}
			requester := func(n int) *string {
				t.Helper()
				var data struct{ Board board }
				api.Query(t, `query($n: Int!) { board(n: $n) { n state requestedBy } }`, map[string]any{"n": n}, &data)
				return data.Board.RequestedBy
			}
			show := func(p *string) string {
				if p == nil {
					return "null"
				}
				return "\"" + *p + "\""
			}

			if got := requester(9); got != nil {
				t.Errorf("board(n: 9) before any request: requestedBy %s, want null", show(got))
			}
			for _, tt := range []struct {
				n    int
				name any
				want string
			}{
				{9, "Ada Lovelace", `"Ada Lovelace"`},
				{9, "someone else", `"Ada Lovelace"`}, // the first requester is kept
				{10, nil, "null"},
				{10, "late", "null"},
				{11, "", "null"}, // empty: not known
			} {
				r := ask(tt.n, tt.name)
				var data struct{ Precompute board }
				if r.Code() != "" || json.Unmarshal(r.Data, &data) != nil || show(data.Precompute.RequestedBy) != tt.want || data.Precompute.State != "PENDING" {
					t.Errorf("precompute(n: %d, requestedBy: %v): %s; want PENDING, requestedBy %s", tt.n, tt.name, r.Raw, tt.want)
				}
				if got := requester(tt.n); show(got) != tt.want {
					t.Errorf("board(n: %d) after precompute by %v: requestedBy %s, want %s", tt.n, tt.name, show(got), tt.want)
				}
			}

			for _, bad := range []string{strings.Repeat("x", 101), "two\nlines", "bell\a"} {
				for _, n := range []int{9, 12} {
					r := ask(n, bad)
					if r.Code() != "BAD_USER_INPUT" || !strings.Contains(r.Message(), "requested by") {
						t.Errorf("precompute(n: %d, requestedBy: %q): %s; want BAD_USER_INPUT about requested by", n, bad, r.Raw)
					}
				}
			}
			var all struct{ Boards []board }
			api.Query(t, `{ boards { n state requestedBy } }`, nil, &all)
			got := map[int]string{}
			for _, b := range all.Boards {
				if b.State != "UNKNOWN" {
					got[b.N] = show(b.RequestedBy)
				}
			}
			want := map[int]string{9: `"Ada Lovelace"`, 10: "null", 11: "null"}
			if len(got) != len(want) || got[9] != want[9] || got[10] != want[10] || got[11] != want[11] {
				t.Errorf("boards after the bad requests: %v; want %v (N=12 never asked for)", got, want)
			}
		})
	}
}
