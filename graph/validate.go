package graph

import (
	"github.com/nqueens/nqueens/solver"
)

// boardForms maps the schema's forms to the solver's.
var boardForms = map[BoardForm]solver.Form{
	BoardFormPlacement: solver.FormPlacement,
	BoardFormCompact:   solver.FormCompact,
	BoardFormRows:      solver.FormRows,
	BoardFormMatrix:    solver.FormMatrix,
	BoardFormChess:     solver.FormChess,
}

// validateArg reads validate's board, given as placement or as board text
// in a form given or detected, and returns it with the form it was read
// in. A well-formed board that is not a solution comes back with its
// *solver.Conflict as the error, as from placementArg.
func validateArg(placement []int, board *string, form *BoardForm, n *int) (solver.Placement, BoardForm, error) {
	switch {
	case placement != nil && board != nil:
		return nil, "", badInput("validate: give placement or board, not both")
	case form != nil && board == nil:
		return nil, "", badInput("form: says how board is written; give it with board, not with placement")
	case board == nil && placement == nil:
		return nil, "", badInput("validate: give the board to check, as placement (its columns, e.g. [1, 3, 0, 2]) or as board (text in a form of BoardForm, e.g. \"a2 b4 c1 d3\")")
	case placement != nil:
		p, err := placementArg("placement", placement, n, maxValidateN)
		return p, BoardFormPlacement, err
	}
	if n != nil && (*n < 1 || *n > maxValidateN) {
		return nil, "", badInput("n: must be from 1 to %d, got %d", maxValidateN, *n)
	}
	var want solver.Form
	if form != nil {
		want = boardForms[*form]
	}
	p, read, err := solver.ParseBoard(*board, want)
	if err != nil {
		return nil, "", badInput("board: %v", err)
	}
	if n != nil && len(p) != *n {
		return nil, "", badInput("board: a board for N=%d needs %s, one queen each; this one has %d", *n, plural(*n, "row"), len(p))
	}
	if len(p) > maxValidateN {
		return nil, "", badInput("board: %d rows; boards of 1 to %d rows are accepted here", len(p), maxValidateN)
	}
	var readForm BoardForm
	for f, sf := range boardForms {
		if sf == read {
			readForm = f
		}
	}
	return p, readForm, solver.ValidateN(len(p), p)
}
