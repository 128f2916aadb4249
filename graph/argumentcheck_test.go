package graph_test

import (
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
)

// TestArgumentsCheckedBeforePricing: a field whose arguments it refuses
// answers what they may be (BAD_USER_INPUT), not the complexity limit's
// "ask for fewer items", however dear the arguments would make it.
func TestArgumentsCheckedBeforePricing(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for _, tt := range []struct{ query, says string }{
		{`{ complete(n: 1000000) { state } }`, "n must be from 1 to"},
		{`{ solutions(n: 8, first: 1000000) { totalCount } }`, "first must be from 0 to 1000"},
		{`{ solutions(n: 100, first: 10) { totalCount } }`, "n must be from 1 to 32"},
		{`{ board(n: 8) { solutions(last: 5000000) { totalCount } } }`, "last must be from 0 to 1000"},
		{`query($n: Int!) { complete(n: $n) { state } }`, "n must be from 1 to"},
	} {
		res := b.Post(t, apitest.Request{Query: tt.query, Variables: map[string]any{"n": 2_000_000}})
		if res.Code() != "BAD_USER_INPUT" || res.Reason() != "" || !strings.Contains(res.Message(), tt.says) {
			t.Errorf("%s: %s; want BAD_USER_INPUT saying %q", tt.query, res.Raw, tt.says)
		}
	}
}
