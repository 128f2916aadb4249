package solver

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The written forms of a placement. Each formatter has a parser back; the
// parsers check only the shape of the text (that it describes one queen
// per row of an N×N board), never that the queens do not attack each other:
// that is Validate's job. Parsers run in time linear in their input, never
// panic, and refuse boards of more than maxFormN rows so that a hostile
// input cannot make them allocate without bound. Rows in error messages are
// 0-based, like Placement's indices.

// maxFormN is the largest board the parsers accept: far beyond any board
// anyone draws, yet small enough that no input can exhaust memory.
const maxFormN = 1_000_000

// formOnBoard panics unless every queen of p is on its N×N board; the board
// forms cannot show a queen that is off the board, so writing one would
// silently lose it.
func formOnBoard(p Placement, form string) {
	n := len(p)
	for r, c := range p {
		if c < 0 || c >= n {
			panic(fmt.Sprintf("solver: %s: row %d: column %d is outside 0..%d", form, r, c, n-1))
		}
	}
}

// Rows draws the board as one string per row, row 0 (the top) first, with
// '.' for an empty square and 'Q' for the queen: ".Q..", "...Q", "Q...",
// "..Q." for [1,3,0,2]. It is the picture people paste and read. The board
// has N² squares, so it is meant for boards that are drawn. It panics if a
// column is outside 0..N-1, as no valid placement's is.
func (p Placement) Rows() []string {
	formOnBoard(p, "Rows")
	n := len(p)
	out := make([]string, n)
	buf := []byte(strings.Repeat(".", n))
	for r, c := range p {
		buf[c] = 'Q'
		out[r] = string(buf)
		buf[c] = '.'
	}
	return out
}

// formRowsAllowed says which characters ParseRows accepts, for its errors.
const formRowsAllowed = "use '.', '-' or '0' for an empty square and 'Q', 'q' or '1' for a queen"

// formIsRowSep reports whether b separates rows in ParseRows' input.
func formIsRowSep(b byte) bool {
	switch b {
	case '\n', '\r', '/', ' ', '\t', ',':
		return true
	}
	return false
}

// ParseRows reads the drawn board written by Rows back, so that boards
// pasted as text can be checked and stored. Rows are separated by newlines,
// '/', spaces or commas (blank lines are ignored); a square is '.', '-' or
// '0' when empty and 'Q', 'q' or '1' for a queen. Every row needs exactly
// one queen, and the board must be square: N rows of N squares.
func ParseRows(s string) (Placement, error) {
	var p Placement
	width := -1
	for i := 0; i < len(s); {
		if formIsRowSep(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !formIsRowSep(s[j]) {
			j++
		}
		row, r := s[i:j], len(p)
		i = j
		switch {
		case width < 0:
			if len(row) > maxFormN {
				return nil, fmt.Errorf("row 0 has %d squares; boards of at most %d rows and columns are accepted", len(row), maxFormN)
			}
			width = len(row)
		case len(row) != width:
			return nil, fmt.Errorf("row %d has %d squares but row 0 has %d; every row must have as many squares as the board has rows", r, len(row), width)
		}
		if r >= width {
			return nil, fmt.Errorf("row %d is one too many: rows of %d squares make a board of %d rows", r, width, width)
		}
		queen := -1
		for k := 0; k < len(row); k++ {
			switch row[k] {
			case '.', '-', '0':
			case 'Q', 'q', '1':
				if queen >= 0 {
					return nil, fmt.Errorf("row %d has more than one queen (squares %d and %d); each row needs exactly one", r, queen, k)
				}
				queen = k
			default:
				ch, _ := utf8.DecodeRuneInString(row[k:])
				return nil, fmt.Errorf("row %d, square %d: %q is not allowed; %s", r, k, ch, formRowsAllowed)
			}
		}
		if queen < 0 {
			return nil, fmt.Errorf("row %d has no queen; each row needs exactly one ('Q', 'q' or '1')", r)
		}
		p = append(p, queen)
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("no rows: write one row per line (or separated by '/'), %s", formRowsAllowed)
	}
	if len(p) != width {
		return nil, fmt.Errorf("%d rows of %d squares: the board must be square, N rows of N squares", len(p), width)
	}
	return p, nil
}

// Matrix writes the board as N rows of N numbers, 1 for the queen and 0
// elsewhere: the form linear-algebra code and JSON clients expect. Like
// Rows it has N² entries and panics if a column is outside 0..N-1.
func (p Placement) Matrix() [][]int {
	formOnBoard(p, "Matrix")
	n := len(p)
	cells := make([]int, n*n)
	m := make([][]int, n)
	for r, c := range p {
		m[r] = cells[r*n : (r+1)*n : (r+1)*n]
		m[r][c] = 1
	}
	return m
}

// ParseMatrix reads the 0/1 matrix written by Matrix back, so that boards
// received as JSON arrays can be checked: it must be square, hold only 0
// and 1, and have exactly one 1 per row.
func ParseMatrix(m [][]int) (Placement, error) {
	n := len(m)
	if n == 0 {
		return nil, fmt.Errorf("empty matrix: need N rows of N entries, 0 for an empty square and 1 for a queen")
	}
	if n > maxFormN {
		return nil, fmt.Errorf("matrix has %d rows; boards of at most %d rows are accepted", n, maxFormN)
	}
	p := make(Placement, n)
	for r, row := range m {
		if len(row) != n {
			return nil, fmt.Errorf("row %d has %d entries but the matrix has %d rows; it must be square, N rows of N entries", r, len(row), n)
		}
		queen := -1
		for c, v := range row {
			switch v {
			case 0:
			case 1:
				if queen >= 0 {
					return nil, fmt.Errorf("row %d has more than one 1 (columns %d and %d); each row needs exactly one queen", r, queen, c)
				}
				queen = c
			default:
				return nil, fmt.Errorf("row %d, column %d: %d is not allowed; entries are 0 (empty) or 1 (queen)", r, c, v)
			}
		}
		if queen < 0 {
			return nil, fmt.Errorf("row %d has no 1; each row needs exactly one queen", r)
		}
		p[r] = queen
	}
	return p, nil
}

// formFile names column c as a chess file: a..z, then aa, ab, … like
// spreadsheet columns (bijective base 26), so that any board has names.
func formFile(c int) string {
	var buf [16]byte
	i := len(buf)
	for v := c + 1; v > 0; v = (v - 1) / 26 {
		i--
		buf[i] = byte('a' + (v-1)%26)
	}
	return string(buf[i:])
}

// Chess writes the placement in chess notation, the form chess players and
// the literature use. Files a, b, c, … are the columns from left to right
// (column 0 is file a; past 26 columns the files go on aa, ab, … like
// spreadsheet columns), and ranks 1, 2, … count rows from the BOTTOM, so a
// queen in row r stands on rank N-r. Squares are listed in file order,
// separated by single spaces: [1,3,0,2] is "a2 b4 c1 d3". It panics if a
// column is outside 0..N-1, as no valid placement's is.
func (p Placement) Chess() string {
	formOnBoard(p, "Chess")
	n := len(p)
	// Sort rows by column (counting sort, O(N)); rows in the same column,
	// which only an invalid placement has, come bottom first.
	start := make([]int, n+1)
	for _, c := range p {
		start[c+1]++
	}
	for c := 0; c < n; c++ {
		start[c+1] += start[c]
	}
	order := make([]int, n)
	for r := n - 1; r >= 0; r-- {
		c := p[r]
		order[start[c]] = r
		start[c]++
	}
	var b []byte
	for i, r := range order {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, formFile(p[r])...)
		b = strconv.AppendInt(b, int64(n-r), 10)
	}
	return string(b)
}

// formIsListSep reports whether b separates items in ParseChess' input.
func formIsListSep(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f', ',':
		return true
	}
	return false
}

// formChessExample is the part of ParseChess' errors that shows the form.
const formChessExample = `write each square as file letters then rank number, e.g. "a2 b4 c1 d3"`

// ParseChess reads the chess notation written by Chess back, so that
// positions quoted from books and chess tools can be checked. Squares may
// come in any order, separated by spaces or commas, in either case. N is the
// number of squares, on files a.. up to the N-th, and each rank 1..N must
// hold exactly one of them (the convention is Chess': rank 1 is the bottom
// row). Two squares may share a file, as two rows may share a column:
// that those queens attack each other is Validate's to say.
func ParseChess(s string) (Placement, error) {
	type square struct {
		text       string
		file, rank int
	}
	var squares []square
	for i := 0; i < len(s); {
		if formIsListSep(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !formIsListSep(s[j]) {
			j++
		}
		tok := s[i:j]
		i = j
		if len(squares) == maxFormN {
			return nil, fmt.Errorf("more than %d squares; boards of at most %d rows are accepted", maxFormN, maxFormN)
		}
		k, file := 0, 0
		for ; k < len(tok); k++ {
			ch := tok[k] | 0x20 // ASCII lower case
			if ch < 'a' || ch > 'z' {
				break
			}
			if file = file*26 + int(ch-'a'+1); file > maxFormN {
				return nil, fmt.Errorf("square %q: file %q is beyond the largest board accepted (%d columns)", tok, tok[:k+1], maxFormN)
			}
		}
		if k == 0 {
			return nil, fmt.Errorf("square %q does not start with a file letter; %s", tok, formChessExample)
		}
		rank, digits := 0, 0
		for ; k < len(tok) && tok[k] >= '0' && tok[k] <= '9'; k++ {
			if rank = rank*10 + int(tok[k]-'0'); rank > maxFormN {
				return nil, fmt.Errorf("square %q: rank is beyond the largest board accepted (%d rows)", tok, maxFormN)
			}
			digits++
		}
		if digits == 0 || k != len(tok) {
			return nil, fmt.Errorf("square %q is not a file and a rank; %s", tok, formChessExample)
		}
		if rank == 0 {
			return nil, fmt.Errorf("square %q: ranks start at 1 (the bottom row)", tok)
		}
		squares = append(squares, square{text: tok, file: file - 1, rank: rank})
	}
	n := len(squares)
	if n == 0 {
		return nil, fmt.Errorf("no squares; %s", formChessExample)
	}
	byRank := make([]int, n+1) // index+1 of the square on each rank; 0 for none
	p := make(Placement, n)
	for i, sq := range squares {
		if sq.file >= n {
			return nil, fmt.Errorf("square %q is off the board: %d squares make a %d×%d board, files a..%s", sq.text, n, n, n, formFile(n-1))
		}
		if sq.rank > n {
			return nil, fmt.Errorf("square %q is off the board: %d squares make a %d×%d board, ranks 1..%d", sq.text, n, n, n, n)
		}
		if prev := byRank[sq.rank]; prev != 0 {
			return nil, fmt.Errorf("squares %q and %q are both on rank %d; each rank needs exactly one queen", squares[prev-1].text, sq.text, sq.rank)
		}
		byRank[sq.rank] = i + 1
		p[n-sq.rank] = sq.file
	}
	return p, nil
}

// formDigits are the base-36 digits of the compact form.
const formDigits = "0123456789abcdefghijklmnopqrstuvwxyz"

// Compact writes one base-36 digit per row (0-9, then a-z): "1302" for
// [1,3,0,2], the shortest form for URLs and keys, and enough for every
// board up to N = 36. Larger boards, and placements with a column that
// does not fit one digit (which no valid placement of N ≤ 36 has), fall
// back to the comma-separated p.String(); a single such row is bracketed,
// "[40]", so it cannot be read back as digits. ParseCompact reads both.
func (p Placement) Compact() string {
	fits := len(p) <= len(formDigits)
	for _, c := range p {
		if c < 0 || c >= len(formDigits) {
			fits = false
			break
		}
	}
	switch {
	case fits:
		b := make([]byte, len(p))
		for r, c := range p {
			b[r] = formDigits[c]
		}
		return string(b)
	case len(p) == 1:
		return "[" + p.String() + "]"
	}
	return p.String()
}

// ParseCompact reads what Compact writes back: a string of base-36 digits
// (0-9 then a-z, either case), one per row, for at most 36 rows; or, when
// it holds a comma, a space or a bracket, the column list ParsePlacement
// reads. Surrounding whitespace is ignored.
func ParseCompact(s string) (Placement, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, ",[] \t\n\r\v\f") {
		return ParsePlacement(s)
	}
	if s == "" {
		return nil, fmt.Errorf("empty: write one base-36 digit (0-9, a-z) per row, e.g. \"1302\", or comma-separated columns")
	}
	if len(s) > len(formDigits) {
		return nil, fmt.Errorf("%d digits: the one-digit-per-row form is for at most %d rows; write larger boards as comma-separated columns", len(s), len(formDigits))
	}
	p := make(Placement, len(s))
	for r := 0; r < len(s); r++ {
		switch ch := s[r]; {
		case ch >= '0' && ch <= '9':
			p[r] = int(ch - '0')
		case ch|0x20 >= 'a' && ch|0x20 <= 'z':
			p[r] = int(ch|0x20-'a') + 10
		default:
			bad, _ := utf8.DecodeRuneInString(s[r:])
			return nil, fmt.Errorf("row %d: %q is not a base-36 digit; use 0-9 and a-z, one per row", r, bad)
		}
	}
	return p, nil
}

// formListExample is the part of ParsePlacement's errors that shows the form.
const formListExample = `columns are integers ≥ 0 separated by commas or spaces, e.g. "1,3,0,2" or "[1, 3, 0, 2]"`

// ParsePlacement reads the column list written by Placement.String back, so
// that placements typed by people or taken from logs can be checked:
// columns separated by commas and/or spaces, optionally inside [ ]
// brackets ("1,3,0,2", "1 3 0 2", "[1, 3, 0, 2]"). Columns are integers
// from 0 to 999,999; whether they fit the board is Validate's question.
func ParsePlacement(s string) (Placement, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") != strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("unbalanced brackets: %s", formListExample)
	}
	if strings.HasPrefix(s, "[") {
		s = s[1 : len(s)-1]
	}
	var p Placement
	comma := false // a comma since the last column
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == ',':
			if len(p) == 0 || comma {
				return nil, fmt.Errorf("empty column before the comma at byte %d: %s", i, formListExample)
			}
			comma = true
			i++
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f':
			i++
		case ch >= '0' && ch <= '9':
			if len(p) == maxFormN {
				return nil, fmt.Errorf("more than %d columns; boards of at most %d rows are accepted", maxFormN, maxFormN)
			}
			v, j := 0, i
			for ; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
				if v = v*10 + int(s[j]-'0'); v >= maxFormN {
					return nil, fmt.Errorf("column %d (%s…) is too large; columns are at most %d", len(p), s[i:j+1], maxFormN-1)
				}
			}
			p = append(p, v)
			comma = false
			i = j
		case ch == '-':
			return nil, fmt.Errorf("column %d is negative: %s", len(p), formListExample)
		default:
			bad, _ := utf8.DecodeRuneInString(s[i:])
			return nil, fmt.Errorf("%q at byte %d is not allowed: %s", bad, i, formListExample)
		}
	}
	if comma {
		return nil, fmt.Errorf("trailing comma: %s", formListExample)
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("no columns: %s", formListExample)
	}
	return p, nil
}
