// Package solver is the N-Queens engine: validation, the common written
// forms of a solution, the symmetry group of the square, fast counting,
// ordered enumeration with cursor-style continuation, prefix chunks and a
// constructive solver for very large boards. It does no I/O.
package solver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxSearchN is the largest N the search-based functions (counting,
// enumeration, chunks) accept: their bitboards are 32 bits wide.
const MaxSearchN = 32

// Placement is one arrangement of queens, one per row: p[r] is the 0-based
// column of the queen in row r. Row 0 is the top row of a drawn board.
type Placement []int

// String writes the placement as comma-separated columns, e.g. "1,3,0,2".
func (p Placement) String() string {
	var b strings.Builder
	for i, c := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}

// Clone returns a copy that does not share memory with p.
func (p Placement) Clone() Placement {
	return append(Placement(nil), p...)
}

// Compare orders placements lexicographically, as the store's byte keys
// and the ordered enumeration do. A proper prefix sorts first.
func (p Placement) Compare(q Placement) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		if p[i] != q[i] {
			if p[i] < q[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(p) < len(q):
		return -1
	case len(p) > len(q):
		return 1
	}
	return 0
}

// Bytes encodes the placement one byte per row, so that byte order is
// lexicographic order. It panics for columns above 255, which no stored
// board (N ≤ MaxSearchN) has.
func (p Placement) Bytes() []byte {
	b := make([]byte, len(p))
	for i, c := range p {
		if c < 0 || c > 255 {
			panic(fmt.Sprintf("solver: column %d does not fit a byte", c))
		}
		b[i] = byte(c)
	}
	return b
}

// FromBytes decodes the one-byte-per-row form written by Bytes.
func FromBytes(b []byte) Placement {
	p := make(Placement, len(b))
	for i, c := range b {
		p[i] = int(c)
	}
	return p
}

// ConflictKind says how two queens attack each other.
type ConflictKind string

// The three ways two queens in different rows can attack each other.
const (
	SameColumn       ConflictKind = "column"
	SameDiagonal     ConflictKind = "diagonal"      // down-right: row-col equal
	SameAntiDiagonal ConflictKind = "anti-diagonal" // down-left: row+col equal
)

// Conflict is the first pair of attacking queens found by Validate:
// scanning rows top to bottom, RowB is the first row whose queen is
// attacked by an earlier one, RowA.
type Conflict struct {
	RowA, RowB int
	ColA, ColB int
	Kind       ConflictKind
}

func (c *Conflict) Error() string {
	switch c.Kind {
	case SameColumn:
		return fmt.Sprintf("rows %d and %d share column %d", c.RowA, c.RowB, c.ColA)
	case SameDiagonal:
		return fmt.Sprintf("rows %d and %d share a diagonal (columns %d and %d)", c.RowA, c.RowB, c.ColA, c.ColB)
	default:
		return fmt.Sprintf("rows %d and %d share an anti-diagonal (columns %d and %d)", c.RowA, c.RowB, c.ColA, c.ColB)
	}
}

// ShapeError reports a placement that is not a well-formed arrangement for
// an N×N board: wrong length or a column outside 0..N-1.
type ShapeError struct {
	N   int
	Msg string
}

func (e *ShapeError) Error() string { return e.Msg }

// Validate checks that p places N = len(p) queens with none attacking
// another. It returns nil, a *ShapeError, or the first *Conflict. It runs in
// O(N) time, so it can check constructed solutions with millions of rows.
func Validate(p Placement) error {
	return ValidateN(len(p), p)
}

// ValidateN is Validate for a board whose size is given separately, so a
// placement of the wrong length is reported as such.
func ValidateN(n int, p Placement) error {
	if n < 1 {
		return &ShapeError{N: n, Msg: fmt.Sprintf("board size must be at least 1, got %d", n)}
	}
	if len(p) != n {
		return &ShapeError{N: n, Msg: fmt.Sprintf("a placement for N=%d needs %d columns, got %d", n, n, len(p))}
	}
	for r, c := range p {
		if c < 0 || c >= n {
			return &ShapeError{N: n, Msg: fmt.Sprintf("row %d: column %d is outside 0..%d", r, c, n-1)}
		}
	}
	if cs := conflicts(p, 1); len(cs) > 0 {
		return &cs[0]
	}
	return nil
}

// Conflicts returns every pair of queens that attack each other with no
// queen between them: for each row from the top, the nearest queen above
// it on its column, on its diagonal and on its anti-diagonal, in that
// order. A line that holds k queens gives k-1 pairs, so a placement is a
// solution exactly when there are none, and there are fewer than 3N; the
// first is the conflict Validate reports. It takes O(N) time. A placement
// that is not well formed gets Validate's *ShapeError.
func Conflicts(p Placement) ([]Conflict, error) {
	var shape *ShapeError
	if errors.As(Validate(p), &shape) {
		return nil, shape
	}
	return conflicts(p, -1), nil
}

// conflicts lists the conflicts of a well-formed p, at most limit of them
// when limit ≥ 0.
func conflicts(p Placement, limit int) []Conflict {
	n := len(p)
	var out []Conflict
	// Row index+1 of the last queen seen on each line; 0 means none.
	cols := make([]int32, n)
	diag := make([]int32, 2*n-1) // r - c + n - 1
	anti := make([]int32, 2*n-1) // r + c
	for r, c := range p {
		for _, line := range [...]struct {
			last *int32
			kind ConflictKind
		}{{&cols[c], SameColumn}, {&diag[r-c+n-1], SameDiagonal}, {&anti[r+c], SameAntiDiagonal}} {
			if a := *line.last; a != 0 {
				out = append(out, Conflict{RowA: int(a - 1), RowB: r, ColA: p[a-1], ColB: c, Kind: line.kind})
				if len(out) == limit {
					return out
				}
			}
			*line.last = int32(r + 1)
		}
	}
	return out
}

// checkN rejects board sizes the search functions cannot handle.
func checkN(n int) error {
	if n < 1 || n > MaxSearchN {
		return fmt.Errorf("solver: N must be between 1 and %d, got %d", MaxSearchN, n)
	}
	return nil
}
