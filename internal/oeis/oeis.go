// Package oeis loads the published N-Queens counts that tests check the
// solver and the store against. The service never answers from them.
package oeis

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Row is one line of the table: the counts of one N.
type Row struct {
	N             int
	Total         uint64 // A000170
	Unique        uint64 // A002562
	Rot90         uint64 // solutions unchanged by a quarter turn, A033148
	Rot180        uint64 // solutions unchanged by a half turn, A032522
	Orbit2        uint64 // classes of 2 members
	Orbit4        uint64 // classes of 4 members
	Orbit8        uint64 // classes of 8 members
	OrbitOfSingle uint64 // 1 for N=1, whose only class has one member
}

// table is the reference table, kept in the repository
// (testdata/oeis.tsv, a copy of the published sequences; its README says
// where the columns come from), so that a clone of the project alone tests.
//
//go:embed testdata/oeis.tsv
var table string

// Load parses the table, keyed by N.
func Load() (map[int]Row, error) {
	rows := map[int]Row{}
	sc := bufio.NewScanner(strings.NewReader(table))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 5 {
			return nil, fmt.Errorf("oeis: %q: want 5 tab-separated fields", line)
		}
		var v [5]uint64
		for i, s := range fields {
			var err error
			if v[i], err = strconv.ParseUint(s, 10, 64); err != nil {
				return nil, fmt.Errorf("oeis: %q: %w", line, err)
			}
		}
		r := Row{N: int(v[0]), Total: v[1], Unique: v[2], Rot90: v[3], Rot180: v[4]}
		if r.N == 1 {
			r.OrbitOfSingle = 1
		} else {
			r.Orbit2 = r.Rot90 / 2
			r.Orbit4 = (r.Rot180 - r.Rot90) / 4
			r.Orbit8 = r.Unique - r.Orbit2 - r.Orbit4
		}
		rows[r.N] = r
	}
	return rows, sc.Err()
}

// MustLoad is Load for tests and benchmarks: a missing table fails them.
func MustLoad(tb testing.TB) map[int]Row {
	tb.Helper()
	rows, err := Load()
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}
