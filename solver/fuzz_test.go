package solver_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// Native fuzz tests. A plain go test runs only the seeds; to fuzz, e.g.
//
//	go test ./solver -run XXX -fuzz FuzzParseRows -fuzztime 10s
//
// Every parser must never panic, and whatever it accepts must survive being
// written in its form and parsed again.

// fuzzSeeds are real solutions of small boards, the seeds of every fuzzer.
func fuzzSeeds() []solver.Placement {
	var out []solver.Placement
	for n := 1; n <= 8; n++ {
		for p := range solver.All(n) {
			out = append(out, p.Clone())
			if len(out)%7 == 0 {
				break // a few per N is enough
			}
		}
	}
	return out
}

// onBoard checks what the board forms guarantee: N rows, every column in
// 0..N-1, so the formatters can write the placement back.
func onBoard(t *testing.T, p solver.Placement, from string) {
	t.Helper()
	if len(p) == 0 {
		t.Fatalf("%q parsed as an empty placement", from)
	}
	for r, c := range p {
		if c < 0 || c >= len(p) {
			t.Fatalf("%q parsed as %v: row %d off the board", from, p, r)
		}
	}
}

func reparse(t *testing.T, p solver.Placement, form, text string, parse func(string) (solver.Placement, error)) {
	t.Helper()
	q, err := parse(text)
	if err != nil {
		t.Fatalf("%v written as %s %q does not parse: %v", p, form, text, err)
	}
	if len(q) != len(p) || q.Compare(p) != 0 {
		t.Fatalf("%v written as %s %q parses as %v", p, form, text, q)
	}
}

func FuzzParseRows(f *testing.F) {
	for _, p := range fuzzSeeds() {
		f.Add(strings.Join(p.Rows(), "\n"))
		f.Add(strings.Join(p.Rows(), "/"))
	}
	f.Add("0100,0001,1000,0010")
	f.Add("..Q\nQ..\n")
	f.Add("Q.\n.QQ")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := solver.ParseRows(s)
		if err != nil {
			return
		}
		onBoard(t, p, s)
		reparse(t, p, "rows", strings.Join(p.Rows(), "\n"), solver.ParseRows)
	})
}

// matrixFrom cuts data into rows of width entries (the last may be short),
// each byte a signed entry, so the fuzzer reaches every shape and value.
func matrixFrom(width uint8, data []byte) [][]int {
	w := int(width % 16)
	m := [][]int{}
	for len(data) > 0 {
		k := min(w, len(data))
		if w == 0 {
			k = 1
		}
		row := make([]int, k)
		for i, b := range data[:k] {
			row[i] = int(int8(b))
		}
		m = append(m, row)
		data = data[k:]
	}
	return m
}

func FuzzParseMatrix(f *testing.F) {
	for _, p := range fuzzSeeds() {
		var data []byte
		for _, row := range p.Matrix() {
			for _, v := range row {
				data = append(data, byte(v))
			}
		}
		f.Add(uint8(len(p)), data)
	}
	f.Add(uint8(2), []byte{1, 0, 2, 1})
	f.Add(uint8(3), []byte{0, 1, 0, 1, 0})
	f.Fuzz(func(t *testing.T, width uint8, data []byte) {
		m := matrixFrom(width, data)
		p, err := solver.ParseMatrix(m)
		if err != nil {
			return
		}
		onBoard(t, p, "matrix")
		// The matrix form has one spelling: writing gives back the input.
		if got := p.Matrix(); !reflect.DeepEqual(got, m) {
			t.Fatalf("ParseMatrix(%v) = %v, written back as %v", m, p, got)
		}
		q, err := solver.ParseMatrix(p.Matrix())
		if err != nil || q.Compare(p) != 0 {
			t.Fatalf("%v: ParseMatrix(Matrix()) = %v, %v", p, q, err)
		}
	})
}

func FuzzParseChess(f *testing.F) {
	for _, p := range fuzzSeeds() {
		f.Add(p.Chess())
		f.Add(strings.ToUpper(strings.ReplaceAll(p.Chess(), " ", ",")))
	}
	p, _ := solver.Solve(30)
	f.Add(p.Chess())
	f.Add("a2 b4 c1 d3 d3")
	f.Add("zz1 a0")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := solver.ParseChess(s)
		if err != nil {
			return
		}
		onBoard(t, p, s)
		reparse(t, p, "chess", p.Chess(), solver.ParseChess)
	})
}

func FuzzParseCompact(f *testing.F) {
	for _, p := range fuzzSeeds() {
		f.Add(p.Compact())
	}
	p, _ := solver.Solve(40)
	f.Add(p.Compact())
	f.Add("az0")
	f.Add("[40]")
	f.Add("3,40")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := solver.ParseCompact(s)
		if err != nil {
			return
		}
		if len(p) == 0 {
			t.Fatalf("%q parsed as an empty placement", s)
		}
		reparse(t, p, "compact", p.Compact(), solver.ParseCompact)
	})
}

func FuzzParsePlacement(f *testing.F) {
	for _, p := range fuzzSeeds() {
		f.Add(p.String())
		f.Add("[" + strings.ReplaceAll(p.String(), ",", ", ") + "]")
	}
	f.Add("1 3 0 2")
	f.Add("1,,2")
	f.Add("[999999]")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := solver.ParsePlacement(s)
		if err != nil {
			return
		}
		if len(p) == 0 {
			t.Fatalf("%q parsed as an empty placement", s)
		}
		for r, c := range p {
			if c < 0 {
				t.Fatalf("%q parsed as %v: row %d negative", s, p, r)
			}
		}
		reparse(t, p, "list", p.String(), solver.ParsePlacement)
		reparse(t, p, "list", "["+strings.ReplaceAll(p.String(), ",", " ")+"]", solver.ParsePlacement)
	})
}

func FuzzParseBoard(f *testing.F) {
	for _, p := range fuzzSeeds() {
		for _, texts := range writtenForms(p) {
			for _, text := range texts {
				f.Add(text)
			}
		}
	}
	f.Add("0 1\n1 1")
	f.Add("[[0,1],[1,0],[1]]")
	f.Add("a2 a4 c1 d3")
	f.Add("00")
	f.Fuzz(func(t *testing.T, s string) {
		p, form, err := solver.ParseBoard(s, "")
		if err != nil {
			return
		}
		onBoard(t, p, s)
		if _, err := solver.ParseForm(string(form)); err != nil {
			t.Fatalf("%q read as %v in form %q: %v", s, p, form, err)
		}
		// Whatever is read, written in any form, reads back as itself.
		for wform, texts := range writtenForms(p) {
			for _, text := range texts {
				q, _, err := solver.ParseBoard(text, "")
				if err != nil || !samePlacement(q, p) {
					t.Fatalf("%q read as %v; written as %s %q, read as %v, %v", s, p, wform, text, q, err)
				}
			}
		}
	})
}

// attack is the independent O(1) test of two queens, for the O(n²) check.
func attack(ra, ca, rb, cb int) bool {
	d := rb - ra
	if d < 0 {
		d = -d
	}
	e := cb - ca
	if e < 0 {
		e = -e
	}
	return ca == cb || d == e
}

func FuzzValidateN(f *testing.F) {
	for _, p := range fuzzSeeds() {
		data := make([]byte, len(p))
		for r, c := range p {
			data[r] = byte(c + 1)
		}
		f.Add(data, int8(0))
		f.Add(data, int8(1))
	}
	f.Add([]byte{1, 2, 3}, int8(0))
	f.Add([]byte{}, int8(0))
	f.Fuzz(func(t *testing.T, data []byte, delta int8) {
		// n is near len(data), and columns mostly near 0..n-1 (-1 and n
		// included), so that both shapes and attacks get exercised.
		n := len(data) + int(delta)
		p := make(solver.Placement, len(data))
		for r, b := range data {
			if n > 0 {
				p[r] = int(b)%(n+2) - 1
			} else {
				p[r] = int(int8(b))
			}
		}
		err := solver.ValidateN(n, p)

		shapeOK := n >= 1 && len(p) == n
		for _, c := range p {
			shapeOK = shapeOK && c >= 0 && c < n
		}
		var shape *solver.ShapeError
		if errors.As(err, &shape) != !shapeOK {
			t.Fatalf("ValidateN(%d, %v) = %v; shape ok: %v", n, p, err, shapeOK)
		}
		if !shapeOK {
			return
		}
		// firstAttacked is the first row attacked by an earlier one, or -1.
		firstAttacked := -1
		for b := 0; b < n && firstAttacked < 0; b++ {
			for a := 0; a < b; a++ {
				if attack(a, p[a], b, p[b]) {
					firstAttacked = b
					break
				}
			}
		}
		if err == nil {
			if firstAttacked >= 0 {
				t.Fatalf("ValidateN(%d, %v) = nil, but row %d is attacked", n, p, firstAttacked)
			}
			return
		}
		var c *solver.Conflict
		if !errors.As(err, &c) {
			t.Fatalf("ValidateN(%d, %v) = %v, neither nil, *ShapeError nor *Conflict", n, p, err)
		}
		if c.RowA < 0 || c.RowA >= c.RowB || c.RowB >= n || c.ColA != p[c.RowA] || c.ColB != p[c.RowB] ||
			!attack(c.RowA, c.ColA, c.RowB, c.ColB) {
			t.Fatalf("ValidateN(%d, %v) = %+v: those rows do not attack each other", n, p, c)
		}
		var kind solver.ConflictKind
		switch {
		case c.ColA == c.ColB:
			kind = solver.SameColumn
		case c.RowA-c.ColA == c.RowB-c.ColB:
			kind = solver.SameDiagonal
		default:
			kind = solver.SameAntiDiagonal
		}
		if c.Kind != kind || c.RowB != firstAttacked {
			t.Fatalf("ValidateN(%d, %v) = %+v; want kind %s and row B %d", n, p, c, kind, firstAttacked)
		}
	})
}

// FuzzFilteredPage: a filtered page next to any cursor, in either
// direction, all or unique, is the slice of the filtered enumeration
// (brute force: filteredListing) that it should be. Each byte of squares
// is one square of the filter, pinned (low bit 0) or empty; each byte of
// cursor a column, so that cursors off the board and of any length come.
func FuzzFilteredPage(f *testing.F) {
	f.Add(uint8(8), []byte{3 << 1, 9<<1 | 1}, []byte{1, 3}, uint8(5), uint8(0))
	f.Add(uint8(6), []byte{}, []byte{}, uint8(3), uint8(3))
	f.Add(uint8(9), []byte{40 << 1, 41 << 1}, []byte{0, 2, 5, 7, 1, 3, 8, 6, 4}, uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, size uint8, squares, cursor []byte, limit, flags uint8) {
		n := 1 + int(size)%9
		var filter solver.Filter
		for _, b := range squares[:min(len(squares), 8)] {
			sq := solver.Square{Row: int(b>>1) / n % n, Col: int(b>>1) % n}
			if b&1 == 0 {
				filter.Queens = append(filter.Queens, sq)
			} else {
				filter.Empty = append(filter.Empty, sq)
			}
		}
		var at solver.Placement
		for _, c := range cursor[:min(len(cursor), n+1)] {
			at = append(at, int(int8(c))%(n+2))
		}
		unique, backward := flags&1 != 0, flags&2 != 0
		k := int(limit % 12)
		got, err := solver.Page(context.Background(), solver.PageQuery{N: n, Cursor: at, Limit: k, Backward: backward, Unique: unique, Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		var after, before solver.Placement
		if len(at) > 0 {
			if backward {
				before = at
			} else {
				after = at
			}
		}
		if want := window(filteredListing(n, filter, unique), after, before, k, backward); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("N=%d filter %q cursor %v limit %d unique=%v backward=%v: %v, want %v", n, filter, at, k, unique, backward, got, want)
		}
	})
}

// FuzzParseFilter: whatever ParseFilter takes, String writes a form that
// reads back as the same filter.
func FuzzParseFilter(f *testing.F) {
	f.Add("q0.3,q2.5,e1.1")
	f.Add(" e4.4 ")
	f.Add("q-1.2")
	f.Fuzz(func(t *testing.T, s string) {
		filter, err := solver.ParseFilter(s)
		if err != nil {
			return
		}
		back, err := solver.ParseFilter(filter.String())
		if err != nil || !slices.Equal(back.Queens, filter.Queens) || !slices.Equal(back.Empty, filter.Empty) {
			t.Fatalf("ParseFilter(%q) = %v, written %q, read back %v, %v", s, filter, filter.String(), back, err)
		}
	})
}
