package solver

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Form names a written form of a placement: the forms the command line
// prints and the API returns, which ParseBoard reads back.
type Form string

// The forms, with [1,3,0,2] written in each.
const (
	FormPlacement Form = "placement" // columns: "1,3,0,2", "1 3 0 2" or "[1, 3, 0, 2]"
	FormCompact   Form = "compact"   // one base-36 digit a row: "1302"
	FormRows      Form = "rows"      // one row a line (or '/'): ".Q.." "...Q" "Q..." "..Q."
	FormMatrix    Form = "matrix"    // 0/1 rows, one a line: "0 1 0 0" …, or [[0,1,0,0], …]
	FormChess     Form = "chess"     // squares, rank 1 at the bottom: "a2 b4 c1 d3"
)

// Forms lists the forms, in the order they are offered to people.
var Forms = []Form{FormPlacement, FormCompact, FormRows, FormMatrix, FormChess}

// boardForms are the forms ParseBoard tries, in this order, when none is
// given; a text of one line is then a placement if it holds a separator
// (a comma, a space or a bracket), else compact. No text one form writes
// reads as another board in a form tried before its own: rows need a
// square of one-queen rows, which the digits of a placement never make;
// a matrix needs N lines of N entries; chess squares start with a letter.
var boardForms = []Form{FormRows, FormMatrix, FormChess}

// formsList is the forms for error messages: "placement, compact, rows,
// matrix or chess".
func formsList() string {
	names := make([]string, len(Forms))
	for i, f := range Forms {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseForm returns the form of the given name.
func ParseForm(name string) (Form, error) {
	for _, f := range Forms {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown form %q; the forms are %s", name, formsList())
}

// ParseBoard reads a board written in form, or, when form is "", in the
// first of the forms that reads all of it (rows, matrix, chess, then, for
// a text of one line, placement or compact, see boardForms): every text
// the formatters write is read back in its own form. It returns the placement and the form it was read in. The
// placement has one queen per row of an N×N board, every column in
// 0..N-1; whether the queens attack each other is Validate's question.
// Like the parsers, it runs in time linear in the text and refuses boards
// of more than a million rows.
func ParseBoard(text string, form Form) (Placement, Form, error) {
	if form != "" {
		p, err := parseBoardAs(text, form)
		if err != nil {
			return nil, "", fmt.Errorf("as %s: %w", form, err)
		}
		return p, form, nil
	}
	if strings.TrimSpace(text) == "" {
		return nil, "", fmt.Errorf("no board: write it in one of the forms %s, e.g. \"1,3,0,2\", \"1302\", \".Q.. ...Q Q... ..Q.\" or \"a2 b4 c1 d3\"", formsList())
	}
	for _, f := range boardForms {
		if p, err := parseBoardAs(text, f); err == nil {
			return p, f, nil
		}
	}
	// Several lines are no column list: a broken matrix is not a list of
	// columns 0 and 1.
	if nonEmptyLines(text) == 1 {
		f := listForm(text)
		if p, err := parseBoardAs(text, f); err == nil {
			return p, f, nil
		}
	}
	guess := likelyForm(text)
	_, err := parseBoardAs(text, guess)
	return nil, "", fmt.Errorf("not a board in any of the forms %s; read as %s, the likeliest: %w", formsList(), guess, err)
}

// parseBoardAs reads text in one form, and checks that the placement fits
// its board.
func parseBoardAs(text string, form Form) (Placement, error) {
	var p Placement
	var err error
	switch form {
	case FormPlacement:
		p, err = ParsePlacement(text)
	case FormCompact:
		p, err = ParseCompact(text)
	case FormRows:
		p, err = ParseRows(text)
	case FormMatrix:
		p, err = parseMatrixText(text)
	case FormChess:
		p, err = ParseChess(text)
	default:
		_, err = ParseForm(string(form))
	}
	if err != nil {
		return nil, err
	}
	// Only the column lists can hold a column off the board.
	var shape *ShapeError
	if errors.As(ValidateN(len(p), p), &shape) {
		return nil, fmt.Errorf("%s; each column is from 0 to N-1, N being the number of rows", shape.Msg)
	}
	return p, nil
}

// likelyForm guesses, from the characters of a text that no form reads,
// the form it was meant in, so that its error can say what is wrong.
func likelyForm(text string) Form {
	s := strings.TrimSpace(text)
	lines := nonEmptyLines(s)
	letters := strings.IndexFunc(s, func(r rune) bool { return r|0x20 >= 'a' && r|0x20 <= 'z' }) >= 0
	switch {
	case strings.ContainsAny(s, ".Qq"):
		return FormRows
	case strings.HasPrefix(s, "[[") || lines > 1 && !letters:
		return FormMatrix
	case letters && strings.ContainsAny(s, " \t\n\r,"):
		return FormChess
	}
	return listForm(s)
}

// listForm tells the two column lists apart: a placement has separators
// or brackets, compact digits only.
func listForm(text string) Form {
	if strings.ContainsAny(strings.TrimSpace(text), " \t,[]") {
		return FormPlacement
	}
	return FormCompact
}

// nonEmptyLines counts the lines of text that hold more than spaces.
func nonEmptyLines(text string) int {
	lines := 0
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) != "" {
			lines++
		}
	}
	return lines
}

// formMatrixExample is the part of parseMatrixText's errors that shows
// the form.
const formMatrixExample = `write one row a line, its entries 0 (empty) or 1 (queen) separated by spaces or commas, e.g. "0 1 0 0" then "0 0 0 1" …, or as a JSON array of rows, [[0,1,0,0],[0,0,0,1],…]`

// parseMatrixText reads the matrix as the command line prints it (one row
// a line, entries separated by spaces) or as JSON (an array of rows):
// rows end at a newline, a ';' or a ']', entries are separated by spaces
// or commas, and '[' is ignored. ParseMatrix then checks the matrix.
func parseMatrixText(s string) (Placement, error) {
	var m [][]int
	var row []int
	endRow := func() {
		if len(row) > 0 {
			m = append(m, row)
			row = nil
		}
	}
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == '\n' || ch == ';' || ch == ']':
			endRow()
			i++
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == ',' || ch == '[':
			i++
		case ch >= '0' && ch <= '9':
			if len(m) >= maxFormN || len(row) >= maxFormN {
				return nil, fmt.Errorf("more than %d rows, or entries in a row; boards of at most %d rows are accepted", maxFormN, maxFormN)
			}
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-i > 1 {
				return nil, fmt.Errorf("row %d, entry %d: %q is not allowed: %s", len(m), len(row), s[i:j], formMatrixExample)
			}
			row = append(row, int(ch-'0'))
			i = j
		default:
			bad, _ := utf8.DecodeRuneInString(s[i:])
			return nil, fmt.Errorf("%q at byte %d is not allowed: %s", bad, i, formMatrixExample)
		}
	}
	endRow()
	if len(m) == 0 {
		return nil, fmt.Errorf("no rows: %s", formMatrixExample)
	}
	return ParseMatrix(m)
}
