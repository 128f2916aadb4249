package graph_test

import (
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/boardsvg"
	"github.com/nqueens/nqueens/solver"
)

// TestSolutionSVG: svg answers boardsvg's drawing of the solution, 400
// pixels unless size says otherwise, and refuses sizes outside
// boardsvg's range.
func TestSolutionSVG(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	var data struct {
		First struct {
			Placement solver.Placement
			Svg       string
		}
		Small struct{ Svg string }
	}
	b.Query(t, `{ first: solutionAt(n: 8, rank: 1) { placement svg }
		small: solution(placement: [1, 3, 0, 2]) { svg(size: 64) } }`, nil, &data)
	if want := boardsvg.Render(data.First.Placement, 400); data.First.Svg != want {
		t.Errorf("svg of %v:\n%s\nwant boardsvg.Render(p, 400):\n%s", data.First.Placement, data.First.Svg, want)
	}
	if want := boardsvg.Render(solver.Placement{1, 3, 0, 2}, 64); data.Small.Svg != want {
		t.Errorf("svg(size: 64):\n%s\nwant:\n%s", data.Small.Svg, want)
	}
	for _, size := range []int{boardsvg.MinSize - 1, boardsvg.MaxSize + 1} {
		res := b.Post(t, apitest.Request{Query: `query($s: Int!) { solution(placement: [1, 3, 0, 2]) { svg(size: $s) } }`, Variables: map[string]any{"s": size}})
		if res.Code() != "BAD_USER_INPUT" {
			t.Errorf("svg(size: %d): %s, want BAD_USER_INPUT", size, res.Raw)
		}
	}
}
