package solver_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// matrixText writes p's matrix as `nqueens solve --format matrix` does:
// one row a line, entries separated by spaces.
func matrixText(p solver.Placement) string {
	var b strings.Builder
	for _, row := range p.Matrix() {
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

// writtenForms is p in every form the command line prints and the API
// returns, with the ways each is commonly pasted.
func writtenForms(p solver.Placement) map[solver.Form][]string {
	matrixJSON := strings.ReplaceAll(fmt.Sprint(p.Matrix()), " ", ",")
	return map[solver.Form][]string{
		solver.FormPlacement: {p.String(), strings.ReplaceAll(p.String(), ",", " ") + "\n", "[" + strings.ReplaceAll(p.String(), ",", ", ") + "]"},
		solver.FormCompact:   {p.Compact(), strings.ToUpper(p.Compact()) + "\n"},
		solver.FormRows:      {strings.Join(p.Rows(), "\n") + "\n", strings.Join(p.Rows(), "/"), strings.Join(p.Rows(), " ")},
		solver.FormMatrix:    {matrixText(p), matrixJSON},
		solver.FormChess:     {p.Chess() + "\n", strings.ToUpper(p.Chess())},
	}
}

// detectedForm is the form ParseBoard reports for p written in form: its
// own, except where two forms write the same text as the same board (the
// one-row board's matrix "1" is its rows, its placement "0" compact) and
// past 36 rows, where the compact form is the placement.
func detectedForm(p solver.Placement, form solver.Form, text string) solver.Form {
	switch {
	case len(p) == 1 && form == solver.FormMatrix && !strings.HasPrefix(text, "["):
		return solver.FormRows
	case len(p) == 1 && form == solver.FormPlacement && !strings.ContainsAny(text, "[,"):
		return solver.FormCompact
	case form == solver.FormCompact && len(p) > 36:
		return solver.FormPlacement
	}
	return form
}

// TestParseBoardReadsEveryWrittenForm writes solutions and random
// placements (queens on the board, attacking or not) of N=1..40 in every
// form and reads each back without being told the form: the same
// placement, in its own form.
func TestParseBoardReadsEveryWrittenForm(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var boards []solver.Placement
	for n := 1; n <= 8; n++ {
		boards = append(boards, solutionsOf(t, n)...)
	}
	for n := 1; n <= 40; n++ {
		for range 20 {
			p := make(solver.Placement, n)
			for i := range p {
				p[i] = r.IntN(n)
			}
			boards = append(boards, p)
		}
	}
	for _, p := range boards {
		for form, texts := range writtenForms(p) {
			for _, text := range texts {
				got, gotForm, err := solver.ParseBoard(text, "")
				if err != nil {
					t.Fatalf("%v as %s %q: %v", p, form, text, err)
				}
				if !samePlacement(got, p) || gotForm != detectedForm(p, form, text) {
					t.Fatalf("%v as %s %q: read as %s %v", p, form, text, gotForm, got)
				}
				// Told the form, it reads the same.
				if got, _, err := solver.ParseBoard(text, form); err != nil || !samePlacement(got, p) {
					t.Fatalf("%v as %s %q, told the form: %v, %v", p, form, text, got, err)
				}
			}
		}
	}
}

// TestParseBoardInTheFormGiven checks that a form given is the only one
// tried, and that its errors name it and say what it allows.
func TestParseBoardInTheFormGiven(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		form solver.Form
		want string // in the error
	}{
		{"1302", solver.FormPlacement, "as placement: row 0: column 1302 is outside 0..0; each column is from 0 to N-1"},
		{"1,3,0,2", solver.FormRows, "as rows: row 1 is one too many: rows of 1 squares make a board of 1 rows"},
		{".Q.x", solver.FormRows, `as rows: row 0, square 3: 'x' is not allowed; use '.', '-' or '0'`},
		{".Q..\n...Q\nQ...\n..Q.", solver.FormChess, `as chess: square ".Q.." does not start with a file letter`},
		{"a2 b4 c1 d3", solver.FormMatrix, `as matrix: 'a' at byte 0 is not allowed: write one row a line`},
		{"0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 2 0", solver.FormMatrix, "as matrix: row 3, column 2: 2 is not allowed; entries are 0 (empty) or 1 (queen)"},
		{"0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 10 0", solver.FormMatrix, `as matrix: row 3, entry 2: "10" is not allowed`},
		{"[[0,1],[1,0],[0,1]]", solver.FormMatrix, "as matrix: row 0 has 2 entries but the matrix has 3 rows"},
		{"1g", solver.FormCompact, "as compact: row 1: column 16 is outside 0..1"},
		{"1302", "hex", `as hex: unknown form "hex"; the forms are placement, compact, rows, matrix or chess`},
	} {
		_, _, err := solver.ParseBoard(c.text, c.form)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseBoard(%q, %s) = %v, want an error with %q", c.text, c.form, err, c.want)
		}
	}
	if p, form, err := solver.ParseBoard("1 3 0 2", solver.FormPlacement); err != nil || form != solver.FormPlacement || !samePlacement(p, solver.Placement{1, 3, 0, 2}) {
		t.Errorf("placement 1 3 0 2: %v %s %v", p, form, err)
	}
}

// TestParseBoardRefusesWhatNoFormReads checks the error for a text no form
// reads: it lists the forms and says what is wrong in the likeliest.
func TestParseBoardRefusesWhatNoFormReads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"", "no board: write it in one of the forms placement, compact, rows, matrix or chess"},
		{" \n\t", "no board"},
		{".Q.\n..Q", "read as rows, the likeliest: 2 rows of 3 squares: the board must be square"},
		{".Q..\n...Q\nQ...\n..QQ", "read as rows, the likeliest: row 3 has more than one queen"},
		{"0 1\n1 1", "read as matrix, the likeliest: row 1 has more than one 1"},
		{"[[0,1],[1,0],[1]]", "read as matrix, the likeliest: row 0 has 2 entries but the matrix has 3 rows"},
		{"1\n3\n0\n2", "read as matrix, the likeliest: row 0 has 1 entries but the matrix has 4 rows"},
		{"a2 b4 c1 z3", "read as chess, the likeliest: square \"z3\" is off the board"},
		{"a2 b4 c1 d2", "read as chess, the likeliest: squares \"a2\" and \"d2\" are both on rank 2"},
		{"1,3,,2", "read as placement, the likeliest: empty column before the comma"},
		{"5 1 2", "read as placement, the likeliest: row 0: column 5 is outside 0..2"},
		{"13!2", "read as compact, the likeliest: row 2: '!' is not a base-36 digit"},
		{"hello", "read as compact, the likeliest: row 0: column 17 is outside 0..4"},
	} {
		_, _, err := solver.ParseBoard(c.text, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseBoard(%q) = %v, want an error with %q", c.text, err, c.want)
			continue
		}
		if c.text != "" && strings.TrimSpace(c.text) != "" && !strings.Contains(err.Error(), "not a board in any of the forms placement, compact, rows, matrix or chess") {
			t.Errorf("ParseBoard(%q) = %v: the forms are not listed", c.text, err)
		}
	}
}

func TestParseForm(t *testing.T) {
	t.Parallel()
	for _, f := range solver.Forms {
		if got, err := solver.ParseForm(string(f)); err != nil || got != f {
			t.Errorf("ParseForm(%q) = %v, %v", f, got, err)
		}
	}
	if _, err := solver.ParseForm("Rows"); err == nil || !strings.Contains(err.Error(), "the forms are placement, compact, rows, matrix or chess") {
		t.Errorf("ParseForm(Rows): %v", err)
	}
}

// TestConflictsAreTheAttackingNeighbours checks Conflicts against every
// pair of queens, on random placements: a pair is listed exactly when the
// two queens share a line with no queen between them, and the first is
// Validate's conflict.
func TestConflictsAreTheAttackingNeighbours(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	type pair struct {
		a, b int
		kind solver.ConflictKind
	}
	line := func(p solver.Placement, a, b int) (solver.ConflictKind, bool) {
		switch {
		case p[a] == p[b]:
			return solver.SameColumn, true
		case a-p[a] == b-p[b]:
			return solver.SameDiagonal, true
		case a+p[a] == b+p[b]:
			return solver.SameAntiDiagonal, true
		}
		return "", false
	}
	for range 3000 {
		n := 1 + r.IntN(12)
		p := make(solver.Placement, n)
		for i := range p {
			p[i] = r.IntN(n)
		}
		var want []pair
		for b := range n {
			for a := range b {
				kind, ok := line(p, a, b)
				between := false
				for k := a + 1; k < b && ok; k++ {
					if kk, on := line(p, a, k); on && kk == kind {
						between = true
					}
				}
				if ok && !between {
					want = append(want, pair{a, b, kind})
				}
			}
		}
		cs, err := solver.Conflicts(p)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		var got []pair
		for _, c := range cs {
			if c.ColA != p[c.RowA] || c.ColB != p[c.RowB] {
				t.Fatalf("%v: conflict %+v has the wrong columns", p, c)
			}
			got = append(got, pair{c.RowA, c.RowB, c.Kind})
		}
		sortPairs := func(ps []pair) {
			slices.SortFunc(ps, func(x, y pair) int {
				return cmpPair(x.b, y.b, x.a, y.a, string(x.kind), string(y.kind))
			})
		}
		sortPairs(want)
		sortPairs(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%v: Conflicts %v, want %v", p, got, want)
		}
		err = solver.Validate(p)
		var first *solver.Conflict
		switch {
		case len(cs) == 0 && err != nil, len(cs) > 0 && (!errors.As(err, &first) || *first != cs[0]):
			t.Fatalf("%v: Validate says %v, the first of Conflicts is %v", p, err, cs)
		}
	}
	if _, err := solver.Conflicts(solver.Placement{0, 2}); err == nil {
		t.Error("Conflicts of a queen off its board: no error")
	}
}

func cmpPair(b1, b2, a1, a2 int, k1, k2 string) int {
	switch {
	case b1 != b2:
		return b1 - b2
	case a1 != a2:
		return a1 - a2
	}
	return strings.Compare(k1, k2)
}
