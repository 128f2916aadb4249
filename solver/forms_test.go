package solver_test

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// solutionsOf collects every solution of N; All reuses its slice, so each
// one is cloned.
func solutionsOf(t testing.TB, n int) []solver.Placement {
	t.Helper()
	var out []solver.Placement
	for p := range solver.All(n) {
		out = append(out, p.Clone())
	}
	if len(out) == 0 && n != 2 && n != 3 {
		t.Fatalf("N=%d: All yielded nothing", n)
	}
	return out
}

func samePlacement(a, b solver.Placement) bool {
	return len(a) == len(b) && a.Compare(b) == 0
}

// chessSquare splits a square like "c12" into its 0-based file (one
// letter, enough for N ≤ 26) and its rank.
func chessSquare(t *testing.T, sq string) (file, rank int) {
	t.Helper()
	if len(sq) < 2 || sq[0] < 'a' || sq[0] > 'z' {
		t.Fatalf("square %q: want one file letter then a rank", sq)
	}
	rank, err := strconv.Atoi(sq[1:])
	if err != nil {
		t.Fatalf("square %q: %v", sq, err)
	}
	return int(sq[0] - 'a'), rank
}

// TestFormsRoundTrip writes every solution of N=1..9 in every form, checks
// what was written square by square, and parses it back.
func TestFormsRoundTrip(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 9; n++ {
		for _, p := range solutionsOf(t, n) {
			parse := func(form, text string, parser func(string) (solver.Placement, error)) {
				t.Helper()
				q, err := parser(text)
				if err != nil {
					t.Fatalf("N=%d %v: %s %q: %v", n, p, form, text, err)
				}
				if !samePlacement(q, p) {
					t.Fatalf("N=%d %v: %s %q parsed as %v", n, p, form, text, q)
				}
			}

			rows := p.Rows()
			if len(rows) != n {
				t.Fatalf("N=%d %v: Rows gave %d rows", n, p, len(rows))
			}
			for r, row := range rows {
				if len(row) != n || strings.Count(row, "Q") != 1 || strings.IndexByte(row, 'Q') != p[r] || strings.Count(row, ".") != n-1 {
					t.Fatalf("N=%d %v: row %d drawn as %q", n, p, r, row)
				}
			}
			parse("rows", strings.Join(rows, "\n"), solver.ParseRows)
			parse("rows", "\n"+strings.Join(rows, "\r\n\n")+"\n", solver.ParseRows)
			parse("rows", strings.Join(rows, "/"), solver.ParseRows)
			parse("rows", strings.Join(rows, ", "), solver.ParseRows)
			binary := strings.NewReplacer(".", "0", "Q", "1").Replace(strings.Join(rows, " "))
			parse("rows", binary, solver.ParseRows)
			dashes := strings.NewReplacer(".", "-", "Q", "q").Replace(strings.Join(rows, "\n"))
			parse("rows", dashes, solver.ParseRows)

			m := p.Matrix()
			if len(m) != n {
				t.Fatalf("N=%d %v: Matrix gave %d rows", n, p, len(m))
			}
			for r, row := range m {
				ones := 0
				for _, v := range row {
					ones += v
				}
				if len(row) != n || ones != 1 || row[p[r]] != 1 {
					t.Fatalf("N=%d %v: matrix row %d is %v", n, p, r, row)
				}
			}
			if q, err := solver.ParseMatrix(m); err != nil || !samePlacement(q, p) {
				t.Fatalf("N=%d %v: ParseMatrix(Matrix()) = %v, %v", n, p, q, err)
			}

			chess := p.Chess()
			squares := strings.Split(chess, " ")
			if len(squares) != n {
				t.Fatalf("N=%d %v: Chess %q has %d squares", n, p, chess, len(squares))
			}
			for i, sq := range squares {
				file, rank := chessSquare(t, sq)
				// Listed in file order; rank 1 is the bottom row, N-1.
				if file != i || rank < 1 || rank > n || p[n-rank] != file {
					t.Fatalf("N=%d %v: Chess %q: square %d is %q", n, p, chess, i, sq)
				}
			}
			parse("chess", chess, solver.ParseChess)
			reversed := slices.Clone(squares)
			slices.Reverse(reversed)
			parse("chess", strings.ToUpper(strings.Join(reversed, ", ")), solver.ParseChess)
			parse("chess", "\t"+strings.Join(reversed, "\n")+" ", solver.ParseChess)

			compact := p.Compact()
			if len(compact) != n {
				t.Fatalf("N=%d %v: Compact %q is not one digit per row", n, p, compact)
			}
			for r := range compact {
				if compact[r] != byte('0'+p[r]) { // N ≤ 9: decimal digits
					t.Fatalf("N=%d %v: Compact %q", n, p, compact)
				}
			}
			parse("compact", compact, solver.ParseCompact)
			parse("compact", " "+compact+"\n", solver.ParseCompact)
			parse("compact", p.String(), solver.ParseCompact)

			str := p.String()
			parse("list", str, solver.ParsePlacement)
			parse("list", strings.ReplaceAll(str, ",", " "), solver.ParsePlacement)
			parse("list", "[ "+strings.ReplaceAll(str, ",", ", ")+" ]", solver.ParsePlacement)
		}
	}
}

// TestFormsLargeBoards round-trips constructed boards past 26 files (the
// spreadsheet-style file names) and past 36 rows (Compact's fallback).
func TestFormsLargeBoards(t *testing.T) {
	t.Parallel()
	for _, n := range []int{26, 27, 36, 37, 100, 703, 5000} {
		p, err := solver.Solve(n)
		if err != nil {
			t.Fatal(err)
		}
		chess := p.Chess()
		if q, err := solver.ParseChess(chess); err != nil || !samePlacement(q, p) {
			t.Fatalf("N=%d: ParseChess(Chess()) = %v, %v", n, q, err)
		}
		if q, err := solver.ParseChess(strings.ToUpper(chess)); err != nil || !samePlacement(q, p) {
			t.Fatalf("N=%d: ParseChess(upper case) = %v, %v", n, q, err)
		}
		compact := p.Compact()
		if n <= 36 && len(compact) != n || n > 36 && compact != p.String() {
			t.Fatalf("N=%d: Compact = %q", n, compact)
		}
		if q, err := solver.ParseCompact(compact); err != nil || !samePlacement(q, p) {
			t.Fatalf("N=%d: ParseCompact(Compact()) = %v, %v", n, q, err)
		}
		if q, err := solver.ParsePlacement(p.String()); err != nil || !samePlacement(q, p) {
			t.Fatalf("N=%d: ParsePlacement(String()) = %v, %v", n, q, err)
		}
		if n <= 703 {
			if q, err := solver.ParseRows(strings.Join(p.Rows(), "\n")); err != nil || !samePlacement(q, p) {
				t.Fatalf("N=%d: ParseRows(Rows()) = %v, %v", n, q, err)
			}
			if q, err := solver.ParseMatrix(p.Matrix()); err != nil || !samePlacement(q, p) {
				t.Fatalf("N=%d: ParseMatrix(Matrix()) = %v, %v", n, q, err)
			}
		}
	}
	// File names, checked by hand: column 25 is z, then aa, ab, …, az, ba,
	// …, zz (column 701), aaa.
	p, _ := solver.Solve(703)
	squares := strings.Fields(p.Chess())
	for col, want := range map[int]string{0: "a", 25: "z", 26: "aa", 27: "ab", 51: "az", 52: "ba", 701: "zz", 702: "aaa"} {
		sq := squares[col]
		if file := strings.TrimRight(sq, "0123456789"); file != want {
			t.Errorf("column %d is file %q (square %q), want %q", col, file, sq, want)
		}
	}
}

// TestFormsN4 is the hand-checked example of each form.
func TestFormsN4(t *testing.T) {
	t.Parallel()
	p := solver.Placement{1, 3, 0, 2}
	if got, want := p.Rows(), []string{".Q..", "...Q", "Q...", "..Q."}; !reflect.DeepEqual(got, want) {
		t.Errorf("Rows = %q, want %q", got, want)
	}
	if got, want := p.Matrix(), [][]int{{0, 1, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 0, 1, 0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Matrix = %v, want %v", got, want)
	}
	if got, want := p.Chess(), "a2 b4 c1 d3"; got != want {
		t.Errorf("Chess = %q, want %q", got, want)
	}
	if got, want := p.Compact(), "1302"; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
	if got, want := (solver.Placement{10, 35, 0}).Compact(), "az0"; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
	if got, want := (solver.Placement{40}).Compact(), "[40]"; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
	if got, want := (solver.Placement{3, 40}).Compact(), "3,40"; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
	for _, c := range []struct {
		text  string
		parse func(string) (solver.Placement, error)
	}{
		{".Q..\n...Q\nQ...\n..Q.", solver.ParseRows},
		{".Q../...Q/Q.../..Q.", solver.ParseRows},
		{"0100,0001,1000,0010", solver.ParseRows},
		{"-q-- ---Q Q--- --q-", solver.ParseRows},
		{"a2 b4 c1 d3", solver.ParseChess},
		{"D3, c1 B4 a2", solver.ParseChess},
		{"1302", solver.ParseCompact},
		{"1,3,0,2", solver.ParseCompact},
		{"1,3,0,2", solver.ParsePlacement},
		{"1 3 0 2", solver.ParsePlacement},
		{"[1, 3, 0, 2]", solver.ParsePlacement},
		{" [1,3 ,0 , 2] ", solver.ParsePlacement},
	} {
		if q, err := c.parse(c.text); err != nil || !samePlacement(q, p) {
			t.Errorf("parsing %q = %v, %v; want %v", c.text, q, err, p)
		}
	}
	if q, err := solver.ParseMatrix([][]int{{0, 1, 0, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 0, 1, 0}}); err != nil || !samePlacement(q, p) {
		t.Errorf("ParseMatrix = %v, %v", q, err)
	}
	if q, err := solver.ParseCompact("AZ0"); err != nil || !samePlacement(q, solver.Placement{10, 35, 0}) {
		t.Errorf(`ParseCompact("AZ0") = %v, %v`, q, err)
	}
	// The parsers check shape, not attacks: two queens in one column parse.
	if q, err := solver.ParseRows("Q.\nQ."); err != nil || !samePlacement(q, solver.Placement{0, 0}) {
		t.Errorf(`ParseRows("Q.\nQ.") = %v, %v`, q, err)
	}
}

// TestFormsOffBoardPanics checks the documented panic of the board forms,
// which cannot draw a queen off the board.
func TestFormsOffBoardPanics(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(solver.Placement){
		"Rows":   func(p solver.Placement) { p.Rows() },
		"Matrix": func(p solver.Placement) { p.Matrix() },
		"Chess":  func(p solver.Placement) { p.Chess() },
	} {
		for _, p := range []solver.Placement{{1, 3, 0, 4}, {0, -1}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s(%v) did not panic", name, p)
					}
				}()
				f(p)
			}()
		}
	}
	// An invalid placement whose queens are on the board is still written.
	if got, want := (solver.Placement{0, 0, 2}).Chess(), "a2 a3 c1"; got != want {
		t.Errorf("Chess = %q, want %q", got, want)
	}
}

func TestParseRowsMalformed(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "\n\n", " / ,",
		".Q..\n...Q\nQ...",             // 3 rows of 4
		".Q..\n...Q\nQ...\n..Q.\nQ...", // 5 rows of 4
		".Q..\n..Q\nQ...\n..Q.",        // short row
		".Q..\n...Q\nQ...\n..Q..",      // long last row
		"....\n...Q\nQ...\n..Q.",       // no queen
		".QQ.\n...Q\nQ...\n..Q.",       // two queens
		".Q..\n...Q\nQ...\n..X.",       // bad character
		".Q..\n...Q\nQ...\n..♛.",       // non-ASCII
		".Q..\n...Q\nQ...\n..Q.\xff",
		".Q..;...Q;Q...;..Q.",
		"0", "0\n1",
		"Q" + strings.Repeat(".", 1_000_000), // wider than any accepted board
	} {
		if p, err := solver.ParseRows(s); err == nil {
			t.Errorf("ParseRows(%.40q) = %v, want an error", s, p)
		} else if err.Error() == "" {
			t.Errorf("ParseRows(%.40q): empty error message", s)
		}
	}
	// The error names the row and what is allowed.
	_, err := solver.ParseRows(".Q..\n...Q\nQ...\n..X.")
	if err == nil || !strings.Contains(err.Error(), "row 3") || !strings.Contains(err.Error(), "'Q'") {
		t.Errorf("error %v does not name row 3 and the allowed characters", err)
	}
}

func TestParseMatrixMalformed(t *testing.T) {
	t.Parallel()
	for _, m := range [][][]int{
		nil,
		{},
		{{}},
		{{0, 1}, {1}},
		{{0, 1}, {1, 0}, {0, 1}},
		{{0, 1, 0}, {1, 0, 0}},
		{{1, 0}, {0, 0}},
		{{1, 1}, {0, 1}},
		{{2, 0}, {0, 1}},
		{{-1, 1}, {1, 0}},
		make([][]int, 1_000_001),
	} {
		if p, err := solver.ParseMatrix(m); err == nil {
			t.Errorf("ParseMatrix(%.40v) = %v, want an error", m, p)
		}
	}
	_, err := solver.ParseMatrix([][]int{{0, 1}, {7, 0}})
	if err == nil || !strings.Contains(err.Error(), "row 1") || !strings.Contains(err.Error(), "0") {
		t.Errorf("error %v does not name row 1 and the allowed values", err)
	}
}

func TestParseChessMalformed(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", " , ",
		"a2 b4 c1",       // rank 4 on a 3-square board
		"a2 b4 c1 e3",    // file e on a 4-square board
		"a2 b2 c1 d3",    // rank 2 twice
		"a2 b4 c1 d3 d3", // duplicate square
		"a0", "a", "2", "2a", "a2b", "a-1", "a+1", "a2;b4", "a²", "ä1",
		"a1 b", "aaaaaaaa1", "a99999999999999999999999",
		"a1 " + strings.Repeat("b2 ", 1_000_000), // more squares than accepted
	} {
		if p, err := solver.ParseChess(s); err == nil {
			t.Errorf("ParseChess(%.40q) = %v, want an error", s, p)
		}
	}
	// Two queens on one file are two rows in one column, read as such.
	if p, err := solver.ParseChess("a2 a4 c1 d3"); err != nil || !samePlacement(p, solver.Placement{0, 3, 0, 2}) {
		t.Errorf(`ParseChess("a2 a4 c1 d3") = %v, %v, want [0 3 0 2]`, p, err)
	}
	_, err := solver.ParseChess("a2 b4 c1 d9")
	if err == nil || !strings.Contains(err.Error(), `"d9"`) || !strings.Contains(err.Error(), "1..4") {
		t.Errorf("error %v does not name the square and the ranks allowed", err)
	}
}

func TestParseCompactMalformed(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "   ", "13-2", "13.2", "1302!", "é", "\x00",
		strings.Repeat("0", 37), // the digit form stops at 36 rows
		"1,3,,0", "[1302", "1,-3",
	} {
		if p, err := solver.ParseCompact(s); err == nil {
			t.Errorf("ParseCompact(%.40q) = %v, want an error", s, p)
		}
	}
}

func TestParsePlacementMalformed(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", " ", "[]", "[ ]", "[", "]", "[1,2", "1,2]", "[[1,2]]",
		",1", "1,", "1,,2", "1, ,2", "[1,2,]",
		"-1", "1,-2", "1.5", "0x1", "1;2", "a", "1e3", "+1", "１",
		"1000000", "99999999999999999999999999",
		strings.Repeat("0,", 1_000_000) + "0", // more columns than accepted
	} {
		if p, err := solver.ParsePlacement(s); err == nil {
			t.Errorf("ParsePlacement(%.40q) = %v, want an error", s, p)
		}
	}
	_, err := solver.ParsePlacement("1,x,2")
	if err == nil || !strings.Contains(err.Error(), "integers") {
		t.Errorf("error %v does not say what is allowed", err)
	}
}
