// Package filterquery turns a filter (solver.Filter) into what both
// backends add to their walk query: a condition on the
// placement column, and key bounds that narrow the index range scan when
// the filter pins the first rows.
//
// The condition is built from literals, not parameters: every value is a
// row or column of a checked filter (0..31), so the text is safe, and the
// planner sees the constants.
package filterquery

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Dialect is the SQL a condition is written in.
type Dialect int

const (
	// Postgres reads row r of the placement as get_byte(placement, r).
	Postgres Dialect = iota
	// SQLite reads it as substr(placement, r+1, 1), a one-byte blob, which
	// SQLite 3.31 (the oldest an analyst's tools are expected to bring)
	// reads the same way.
	SQLite
)

// Condition is the SQL condition on the column placement that the rows of
// a listing under f meet: f's own squares, or for a unique listing (of
// canonical rows) those of any of f's images (solver.Filter.Images).
func Condition(d Dialect, n int, f solver.Filter, unique bool) string {
	if !unique {
		return conjunction(d, f)
	}
	var terms []string
	for _, g := range f.Images(n) {
		terms = append(terms, "("+conjunction(d, g)+")")
	}
	return strings.Join(terms, " OR ")
}

// conjunction is the condition of one filter.
func conjunction(d Dialect, f solver.Filter) string {
	var terms []string
	for _, q := range f.Queens {
		terms = append(terms, square(d, q, "="))
	}
	for _, q := range f.Empty {
		terms = append(terms, square(d, q, "<>"))
	}
	if len(terms) == 0 {
		return "1 = 1"
	}
	return strings.Join(terms, " AND ")
}

func square(d Dialect, q solver.Square, op string) string {
	if d == SQLite {
		return fmt.Sprintf("substr(placement, %d, 1) %s x'%02x'", q.Row+1, op, q.Col)
	}
	return fmt.Sprintf("get_byte(placement, %d) %s %d", q.Row, op, q.Col)
}

// Range returns exclusive key bounds (lower < placement < upper) outside of
// which no row of the listing lies: a filter that pins rows 0..k-1 keeps
// placements that start with those k columns; a unique listing takes the
// span of its images' ranges. Without pinned first rows the range is every
// key: the empty key and 0xFF (see columns.CursorKey).
func Range(n int, f solver.Filter, unique bool) (lower, upper []byte) {
	filters := []solver.Filter{f}
	if unique {
		filters = f.Images(n)
	}
	for i, g := range filters {
		lo, hi := filterRange(n, g)
		if i == 0 || bytes.Compare(lo, lower) < 0 {
			lower = lo
		}
		if i == 0 || bytes.Compare(hi, upper) > 0 {
			upper = hi
		}
	}
	return lower, upper
}

// filterRange is Range for one filter.
func filterRange(n int, f solver.Filter) (lower, upper []byte) {
	cols := make([]int, n)
	for r := range cols {
		cols[r] = -1
	}
	for _, q := range f.Queens {
		if cols[q.Row] >= 0 && cols[q.Row] != q.Col {
			return []byte{}, []byte{0xFF} // two queens on a row: nothing matches, the condition says so
		}
		cols[q.Row] = q.Col
	}
	var prefix []byte
	for r := 0; r < n && cols[r] >= 0; r++ {
		prefix = append(prefix, byte(cols[r]))
	}
	if len(prefix) == 0 {
		return []byte{}, []byte{0xFF}
	}
	// Every placement that starts with the prefix is longer than it, so
	// greater; a prefix of all n rows is itself a placement, and its own
	// first n-1 rows bound it from below.
	lower = prefix[:min(len(prefix), n-1)]
	upper = bytes.Clone(prefix)
	upper[len(upper)-1]++
	return lower, upper
}

// CanonicalOnly is the condition that keeps a unique listing's rows (the
// canonical ones), appended to a WHERE clause; empty for all solutions.
func CanonicalOnly(unique bool) string {
	if unique {
		return " AND canonical"
	}
	return ""
}

// WalkRange returns the exclusive key bounds of a walk: the filter's
// range, cut by the walk's cursor.
func WalkRange(req store.WalkRequest) (lower, upper []byte) {
	lower, upper = Range(req.N, req.Filter, req.Unique)
	if key := req.After.Bytes(); len(key) > 0 && bytes.Compare(key, lower) > 0 {
		lower = key
	}
	return lower, upper
}
