// Package oeis loads the published N-Queens counts that tests check the
// solver and the store against. The service never answers from them.
package oeis

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Row is one line of shared/reference/oeis.tsv.
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

// Path finds the reference table: $NQUEENS_REFERENCE, or
// shared/reference/oeis.tsv in the working directory or any parent (the
// checkout sits beside shared/).
func Path() (string, error) {
	if p := os.Getenv("NQUEENS_REFERENCE"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		for _, cand := range []string{
			filepath.Join(dir, "shared", "reference", "oeis.tsv"),
			filepath.Join(dir, "..", "shared", "reference", "oeis.tsv"),
		} {
			if _, err := os.Stat(cand); err == nil {
				return cand, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("oeis: shared/reference/oeis.tsv not found above the working directory; set NQUEENS_REFERENCE")
		}
		dir = parent
	}
}

// Load reads the table, keyed by N.
func Load() (map[int]Row, error) {
	path, err := Path()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows := map[int]Row{}
	sc := bufio.NewScanner(f)
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
