package graph

import (
	"github.com/nqueens/nqueens/solver"
)

// maxCompleteSquares bounds each of complete's lists of squares: a board
// of MaxCompleteN rows has at most that many queens, and the request body
// limit bounds the lists before this does.
const maxCompleteSquares = 10_000

// checkCompleteN checks complete's board size.
func checkCompleteN(n int) error {
	if n < 1 || n > solver.MaxCompleteN {
		return badInput("n must be from 1 to %d (the largest board complete takes), got %d", solver.MaxCompleteN, n)
	}
	return nil
}

// completeArgs checks complete's arguments and returns them as the
// solver's filter.
func completeArgs(n int, queens, empty []*SquareInput) (solver.Filter, error) {
	if err := checkCompleteN(n); err != nil {
		return solver.Filter{}, err
	}
	var f solver.Filter
	for _, list := range []struct {
		name string
		in   []*SquareInput
		out  *[]solver.Square
	}{{"queens", queens, &f.Queens}, {"empty", empty, &f.Empty}} {
		if len(list.in) > maxCompleteSquares {
			return solver.Filter{}, badInput("%s: %d squares; at most %d are allowed", list.name, len(list.in), maxCompleteSquares)
		}
		for _, s := range list.in {
			*list.out = append(*list.out, solver.Square{Row: s.Row, Col: s.Col})
		}
	}
	if err := f.Check(n); err != nil {
		return solver.Filter{}, badInput("%v", err)
	}
	return f, nil
}

// completionModel is the schema's form of a completion.
func completionModel(c solver.Completion) *Completion {
	out := &Completion{}
	switch c.State {
	case solver.Completed:
		out.State, out.Placement = CompletionStateCompleted, c.Placement
		return out
	case solver.Impossible:
		out.State = CompletionStateImpossible
	default:
		out.State = CompletionStateUnknown
	}
	out.Reason = &c.Reason
	return out
}
