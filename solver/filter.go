package solver

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Square is one square of the board: 0-based row and column, row 0 on top.
type Square struct{ Row, Col int }

// Filter selects the solutions that have a queen on every Queens square
// and none on any Empty square. The zero Filter selects every solution.
// Filters that no solution can meet (two pinned queens that attack each
// other, a square both pinned and blocked) are valid: they select nothing.
type Filter struct {
	Queens []Square
	Empty  []Square
}

// IsZero reports whether f selects every solution.
func (f Filter) IsZero() bool { return len(f.Queens) == 0 && len(f.Empty) == 0 }

// MaxFilterSquares bounds the squares of a filter, Queens and Empty
// together, besides 2N a list: a matching solution has N queens, and a
// filter naming more says nothing a shorter one could not (a board of
// N=32 has 1,024 squares).
const MaxFilterSquares = 64

// Validate is the one check of a filter given for board n, wherever it
// comes from (the API, an export, the command line, the store's
// arguments): at most 2N squares a list and MaxFilterSquares in all, each
// on the board (Check). Its error says which list or square is wrong and
// what is allowed.
func (f Filter) Validate(n int) error {
	limits := fmt.Sprintf("a filter names at most 2N = %d squares a list for N=%d, and %d in all", 2*n, n, MaxFilterSquares)
	for _, list := range []struct {
		name    string
		squares []Square
	}{{"queens", f.Queens}, {"empty", f.Empty}} {
		if len(list.squares) > 2*n {
			return fmt.Errorf("%s names %d squares: %s", list.name, len(list.squares), limits)
		}
	}
	if k := len(f.Queens) + len(f.Empty); k > MaxFilterSquares {
		return fmt.Errorf("queens and empty name %d squares: %s", k, limits)
	}
	return f.Check(n)
}

// Check reports the first square that is not on a board of size n.
func (f Filter) Check(n int) error {
	for _, list := range []struct {
		name    string
		squares []Square
	}{{"queens", f.Queens}, {"empty", f.Empty}} {
		for i, s := range list.squares {
			if s.Row < 0 || s.Row >= n || s.Col < 0 || s.Col >= n {
				return fmt.Errorf("%s[%d] is (row %d, col %d), off the board: rows and columns of N=%d go from 0 to %d", list.name, i, s.Row, s.Col, n, n-1)
			}
		}
	}
	return nil
}

// Matches reports whether placement p meets the filter. p must be a full
// placement of the board the filter was checked against.
func (f Filter) Matches(p Placement) bool {
	for _, s := range f.Queens {
		if p[s.Row] != s.Col {
			return false
		}
	}
	for _, s := range f.Empty {
		if p[s.Row] == s.Col {
			return false
		}
	}
	return true
}

// RowMasks returns, for each row of a board of size n ≤ MaxSearchN, the
// columns a matching solution may use there: what a search prunes with.
// f must have passed Check(n).
func (f Filter) RowMasks(n int) []uint32 {
	all := uint32(1)<<uint(n) - 1
	masks := make([]uint32, n)
	for r := range masks {
		masks[r] = all
	}
	for _, s := range f.Queens {
		masks[s.Row] &= 1 << uint(s.Col)
	}
	for _, s := range f.Empty {
		masks[s.Row] &^= 1 << uint(s.Col)
	}
	return masks
}

// String writes the filter in the form ParseFilter reads, e.g.
// "q0.3,q2.5,e1.1": q for a pinned queen, e for an empty square, then
// row.col. The zero filter writes as "".
func (f Filter) String() string {
	var parts []string
	for _, s := range f.Queens {
		parts = append(parts, fmt.Sprintf("q%d.%d", s.Row, s.Col))
	}
	for _, s := range f.Empty {
		parts = append(parts, fmt.Sprintf("e%d.%d", s.Row, s.Col))
	}
	return strings.Join(parts, ",")
}

// ParseFilterFor reads a filter of board n written as Filter.String
// writes it, and checks it (Validate): the one way from text to a filter,
// for the export's where parameter and the commands' --where.
func ParseFilterFor(n int, s string) (Filter, error) {
	f, err := ParseFilter(s)
	if err != nil {
		return Filter{}, err
	}
	if err := f.Validate(n); err != nil {
		return Filter{}, err
	}
	return f, nil
}

// ParseFilter reads the form Filter.String writes. It checks the form, not
// the board: call Check(n) on the result, or use ParseFilterFor.
func ParseFilter(s string) (Filter, error) {
	var f Filter
	s = strings.TrimSpace(s)
	if s == "" {
		return f, nil
	}
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		row, col, ok := strings.Cut(part[min(1, len(part)):], ".")
		r, errR := strconv.Atoi(row)
		c, errC := strconv.Atoi(col)
		if !ok || errR != nil || errC != nil || len(part) == 0 || (part[0] != 'q' && part[0] != 'e') {
			return Filter{}, fmt.Errorf("filter item %d is %q: write q<row>.<col> for a queen or e<row>.<col> for an empty square, e.g. q0.3,e1.1", i+1, part)
		}
		if part[0] == 'q' {
			f.Queens = append(f.Queens, Square{r, c})
		} else {
			f.Empty = append(f.Empty, Square{r, c})
		}
	}
	return f, nil
}

// Canonical returns f with its squares sorted (by row, then column) and
// duplicates dropped: filters that differ only in how they were written
// become equal, and so do their Keys.
func (f Filter) Canonical() Filter {
	sorted := func(s []Square) []Square {
		if len(s) == 0 {
			return nil
		}
		s = slices.Clone(s)
		slices.SortFunc(s, func(a, b Square) int { return cmp.Or(cmp.Compare(a.Row, b.Row), cmp.Compare(a.Col, b.Col)) })
		return slices.Compact(s)
	}
	return Filter{Queens: sorted(f.Queens), Empty: sorted(f.Empty)}
}

// Key is the canonical text of f, the form ParseFilter reads: what a
// stored filtered count is keyed by. Filters equal up to the order and
// repetition of their squares have the same key; filters that select the
// same solutions in other ways (a blocked square next to a pinned queen of
// its row) do not, and are counted apart.
func (f Filter) Key() string { return f.Canonical().String() }

// MarshalText writes f as its Key, so that a filter in JSON (a job's
// arguments) is its canonical text.
func (f Filter) MarshalText() ([]byte, error) { return []byte(f.Key()), nil }

// UnmarshalText reads what MarshalText writes.
func (f *Filter) UnmarshalText(text []byte) error {
	g, err := ParseFilter(string(text))
	if err != nil {
		return err
	}
	*f = g.Canonical()
	return nil
}
