package graph_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/solver"
)

// matrixLines writes a matrix as `nqueens solve --format matrix` prints
// it: one row a line, entries separated by spaces.
func matrixLines(m [][]int) string {
	var b strings.Builder
	for _, row := range m {
		for i, v := range row {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// jsonText writes v as JSON, as the API returns it.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// validation is validate's answer, with every field.
type validation struct {
	Valid    bool
	N        int
	Form     string
	Message  string
	Conflict *struct {
		RowA, RowB, ColA, ColB int
		Kind, Message          string
	}
}

const validateFields = `{ valid n form message conflict { rowA rowB colA colB kind message } }`

// TestValidateBoardInEveryForm takes a solution and a placement that is
// not one, each in every form the API writes (the Solution fields) and the
// command line prints, and checks that validate(board:) reads each back,
// detecting the form or told it, with the verdict of validate(placement:).
func TestValidateBoardInEveryForm(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for _, cols := range [][]int{{4, 6, 1, 5, 2, 0, 3, 7}, {1, 3, 0, 2, 6, 4, 7, 5}} {
		var byPlacement struct{ Validate validation }
		b.Query(t, `query($p: [Int!]) { validate(placement: $p) `+validateFields+` }`, map[string]any{"p": cols}, &byPlacement)
		if byPlacement.Validate.Form != "PLACEMENT" {
			t.Errorf("validate(placement: %v): form %q, want PLACEMENT", cols, byPlacement.Validate.Form)
		}
		// The forms as the command line prints them and as the API
		// returns them (a matrix as JSON); a placement that is not a
		// solution has them too, through the solver's formatters.
		p := solver.Placement(cols)
		texts := map[string][]string{
			"PLACEMENT": {p.String(), strings.ReplaceAll(p.String(), ",", " ")},
			"COMPACT":   {p.Compact()},
			"ROWS":      {strings.Join(p.Rows(), "\n"), strings.Join(p.Rows(), "/")},
			"MATRIX":    {matrixLines(p.Matrix()), jsonText(t, p.Matrix())},
			"CHESS":     {p.Chess()},
		}
		for form, list := range texts {
			for _, text := range list {
				for _, given := range []any{nil, form} {
					var data struct{ Validate validation }
					b.Query(t, `query($b: String, $f: BoardForm) { validate(board: $b, form: $f) `+validateFields+` }`,
						map[string]any{"b": text, "f": given}, &data)
					got, want := data.Validate, byPlacement.Validate
					want.Form = form
					if got.Valid != want.Valid || got.N != want.N || got.Form != want.Form || got.Message != want.Message ||
						(got.Conflict == nil) != (want.Conflict == nil) || got.Conflict != nil && *got.Conflict != *want.Conflict {
						t.Errorf("validate(board: %q, form: %v) = %+v, want %+v", text, given, got, want)
					}
				}
			}
		}
		if byPlacement.Validate.Valid == (solver.Validate(p) != nil) {
			t.Errorf("%v: validate says valid=%v, the solver %v", cols, byPlacement.Validate.Valid, solver.Validate(p))
		}
	}
}

// TestValidateBoardTakesTheAPIsOwnForms feeds the Solution fields the API
// returns for a solution back to validate(board:).
func TestValidateBoardTakesTheAPIsOwnForms(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	var data struct {
		SolutionAt struct {
			Placement []int
			Compact   string
			Rows      []string
			Matrix    [][]int
			Chess     string
		}
	}
	b.Query(t, `{ solutionAt(n: 10, rank: 77) { placement compact rows matrix chess } }`, nil, &data)
	s := data.SolutionAt
	for form, text := range map[string]string{
		"PLACEMENT": jsonText(t, s.Placement),
		"COMPACT":   s.Compact,
		"ROWS":      strings.Join(s.Rows, "\n"),
		"MATRIX":    jsonText(t, s.Matrix),
		"CHESS":     s.Chess,
	} {
		var v struct{ Validate validation }
		b.Query(t, `query($b: String) { validate(board: $b) `+validateFields+` }`, map[string]any{"b": text}, &v)
		if !v.Validate.Valid || v.Validate.N != 10 || v.Validate.Form != form {
			t.Errorf("validate(board: %q) = %+v, want valid, N=10, form %s", text, v.Validate, form)
		}
	}
}

// TestValidateBadBoards checks that a board validate cannot read is
// BAD_USER_INPUT saying what is allowed, and that the server answers the
// next query.
func TestValidateBadBoards(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	const bad, validationFailed = "BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED"
	for _, tt := range []struct {
		name   string
		query  string
		vars   map[string]any
		status int
		code   string
		says   string
	}{
		{name: "neither", query: `{ validate { valid } }`, code: bad, says: "give the board to check, as placement (its columns, e.g. [1, 3, 0, 2]) or as board"},
		{name: "both", query: `{ validate(placement: [0], board: "0") { valid } }`, code: bad, says: "give placement or board, not both"},
		{name: "form without board", query: `{ validate(placement: [1, 3, 0, 2], form: ROWS) { valid } }`, code: bad, says: "give it with board"},
		{name: "no form reads it", query: `{ validate(board: "hi there") { valid } }`, code: bad,
			says: "board: not a board in any of the forms placement, compact, rows, matrix or chess; read as chess, the likeliest: square \"hi\" is not a file and a rank"},
		{name: "empty board", query: `{ validate(board: "") { valid } }`, code: bad, says: "board: no board: write it in one of the forms"},
		{name: "rows not square", query: `{ validate(board: ".Q..\n...Q\nQ...") { valid } }`, code: bad, says: "3 rows of 4 squares: the board must be square"},
		{name: "wrong form given", query: `{ validate(board: "a2 b4 c1 d3", form: ROWS) { valid } }`, code: bad, says: "board: as rows: row 0, square 0: 'a' is not allowed"},
		{name: "off the board", query: `{ validate(board: "1,3,0,4") { valid } }`, code: bad, says: "row 3: column 4 is outside 0..3; each column is from 0 to N-1"},
		{name: "rows but n", query: `{ validate(board: "1302", n: 5) { valid } }`, code: bad, says: "board: a board for N=5 needs 5 rows, one queen each; this one has 4"},
		{name: "n out of range", query: `{ validate(board: "1302", n: 0) { valid } }`, code: bad, says: "n: must be from 1 to 1000000, got 0"},
		{name: "unknown form", query: `{ validate(board: "1302", form: HEX) { valid } }`, status: http.StatusBadRequest, code: validationFailed},
		{name: "placement empty", query: `{ validate(placement: []) { valid } }`, code: bad, says: "the placement is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := b.Post(t, apitest.Request{Query: tt.query, Variables: tt.vars})
			status := tt.status
			if status == 0 {
				status = http.StatusOK
			}
			if r.Status != status || r.Code() != tt.code || !strings.Contains(r.Message(), tt.says) {
				t.Errorf("status %d, code %q; want %d, %q, a message with %q\n%s", r.Status, r.Code(), status, tt.code, tt.says, r.Raw)
			}
			var data struct{ Validate validation }
			b.Query(t, `{ validate(board: "a2 b4 c1 d3") { valid n form } }`, nil, &data)
			if !data.Validate.Valid || data.Validate.Form != "CHESS" {
				t.Errorf("after the bad input, validate(board: a2 b4 c1 d3) = %+v", data.Validate)
			}
		})
	}
}
