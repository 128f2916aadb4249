package solver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestFilterMatchesRowMasks checks Matches against RowMasks on every
// solution of N=8 for filters of pinned and blocked squares: the masks are
// what a search prunes with, so both must select the same solutions.
func TestFilterMatchesRowMasks(t *testing.T) {
	t.Parallel()
	const n = 8
	filters := []solver.Filter{
		{},
		{Queens: []solver.Square{{0, 3}}},
		{Queens: []solver.Square{{0, 0}, {7, 7}}},
		{Empty: []solver.Square{{1, 1}, {4, 4}}},
		{Queens: []solver.Square{{2, 5}}, Empty: []solver.Square{{0, 0}}},
		{Queens: []solver.Square{{3, 3}}, Empty: []solver.Square{{3, 3}}},
	}
	for _, f := range filters {
		if err := f.Check(n); err != nil {
			t.Fatalf("Check(%v): %v", f, err)
		}
		masks := f.RowMasks(n)
		matched := 0
		for p := range solver.All(n) {
			byMask := true
			for r, c := range p {
				byMask = byMask && masks[r]&(1<<uint(c)) != 0
			}
			if f.Matches(p) != byMask {
				t.Fatalf("filter %q, solution %v: Matches %v, masks %v", f, p, f.Matches(p), byMask)
			}
			if byMask {
				matched++
			}
		}
		if f.IsZero() && matched != 92 {
			t.Errorf("the zero filter matched %d of N=8's solutions, want all 92", matched)
		}
	}
}

// TestParseFilter reads back what String writes and refuses what is not
// the form, saying what is.
func TestParseFilter(t *testing.T) {
	t.Parallel()
	f := solver.Filter{Queens: []solver.Square{{0, 3}, {2, 5}}, Empty: []solver.Square{{1, 1}}}
	got, err := solver.ParseFilter(f.String())
	if err != nil || !slices.Equal(got.Queens, f.Queens) || !slices.Equal(got.Empty, f.Empty) {
		t.Fatalf("ParseFilter(%q) = %v, %v; want %v", f.String(), got, err, f)
	}
	for _, bad := range []string{"x0.1", "q0", "q0.a", "q.1", ",", "q0.1,"} {
		if _, err := solver.ParseFilter(bad); err == nil {
			t.Errorf("ParseFilter(%q) took it", bad)
		}
	}
	if err := (solver.Filter{Empty: []solver.Square{{8, 0}}}).Check(8); err == nil {
		t.Error("Check(8) took a square on row 8")
	}
}

func TestFilterKey(t *testing.T) {
	t.Parallel()
	a := solver.Filter{Queens: []solver.Square{{2, 5}, {0, 3}, {2, 5}}, Empty: []solver.Square{{1, 1}, {0, 0}}}
	b := solver.Filter{Queens: []solver.Square{{0, 3}, {2, 5}}, Empty: []solver.Square{{0, 0}, {1, 1}, {0, 0}}}
	if a.Key() != b.Key() {
		t.Errorf("keys differ: %q and %q", a.Key(), b.Key())
	}
	back, err := solver.ParseFilter(a.Key())
	if err != nil || back.Key() != a.Key() || len(back.Queens) != 2 || len(back.Empty) != 2 {
		t.Errorf("solver.ParseFilter(%q) = %+v, %v", a.Key(), back, err)
	}
	if (solver.Filter{}).Key() != "" {
		t.Errorf("the zero filter's key is %q", solver.Filter{}.Key())
	}
	if a.Key() == (solver.Filter{Queens: a.Empty, Empty: a.Queens}).Key() {
		t.Error("queens and empty squares share a key")
	}
}

// TestFilterValidate: the one check of a filter from outside takes what is
// on the board within 2N squares a list and MaxFilterSquares in all, and
// says what is allowed when it refuses.
func TestFilterValidate(t *testing.T) {
	t.Parallel()
	squares := func(k, n int) []solver.Square {
		var out []solver.Square
		for i := range k {
			out = append(out, solver.Square{Row: i / n % n, Col: i % n})
		}
		return out
	}
	for _, c := range []struct {
		n    int
		f    solver.Filter
		says string // "" when it is valid
	}{
		{8, solver.Filter{}, ""},
		{8, solver.Filter{Queens: squares(16, 8), Empty: squares(16, 8)}, ""},
		{8, solver.Filter{Empty: squares(17, 8)}, "empty names 17 squares: a filter names at most 2N = 16 squares a list for N=8, and 64 in all"},
		{32, solver.Filter{Queens: squares(33, 32), Empty: squares(32, 32)}, "queens and empty name 65 squares: a filter names at most 2N = 64 squares a list for N=32, and 64 in all"},
		{8, solver.Filter{Queens: []solver.Square{{8, 0}}}, "queens[0] is (row 8, col 0), off the board: rows and columns of N=8 go from 0 to 7"},
	} {
		err := c.f.Validate(c.n)
		if (c.says == "") != (err == nil) || (err != nil && err.Error() != c.says) {
			t.Errorf("N=%d %v: Validate = %v, want %q", c.n, c.f, err, c.says)
		}
	}
	if _, err := solver.ParseFilterFor(4, "q0.1,e4.0"); err == nil || !strings.Contains(err.Error(), "off the board") {
		t.Errorf("ParseFilterFor(4, a square off the board) = %v", err)
	}
	if f, err := solver.ParseFilterFor(4, "e2.2, q0.1"); err != nil || f.Key() != "q0.1,e2.2" {
		t.Errorf("ParseFilterFor(4, …) = %v, %v", f, err)
	}
}

// TestFilterText: a filter writes as its key in JSON (a job's arguments)
// and reads back equal.
func TestFilterText(t *testing.T) {
	t.Parallel()
	f := solver.Filter{Queens: []solver.Square{{2, 5}, {0, 3}}, Empty: []solver.Square{{1, 1}, {1, 1}}}
	data, err := json.Marshal(struct{ F solver.Filter }{f})
	if err != nil || string(data) != `{"F":"q0.3,q2.5,e1.1"}` {
		t.Fatalf("json.Marshal = %s, %v", data, err)
	}
	var back struct{ F solver.Filter }
	if err := json.Unmarshal(data, &back); err != nil || back.F.Key() != f.Key() || len(back.F.Empty) != 1 {
		t.Errorf("json.Unmarshal(%s) = %+v, %v", data, back, err)
	}
	if err := json.Unmarshal([]byte(`{"F":"x1"}`), &back); err == nil {
		t.Error("json.Unmarshal took a filter that is not one")
	}
}

// TestFilterImages: a canonical solution of N=1..8 has a member that a
// filter of one queen or one empty square matches exactly when it
// matches one of the filter's images.
func TestFilterImages(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 8; n++ {
		for p := range solver.AllUnique(n) {
			for sq := range n * n {
				q := solver.Square{Row: sq / n, Col: sq % n}
				for _, f := range []solver.Filter{{Queens: []solver.Square{q}}, {Empty: []solver.Square{q}}} {
					want, got := false, false
					for _, im := range solver.Images(p) {
						want = want || f.Matches(im.Placement)
					}
					for _, g := range f.Images(n) {
						got = got || g.Matches(p)
					}
					if got != want {
						t.Errorf("N=%d %v under %q: an image matches %t, a member %t", n, p, f, got, want)
					}
				}
			}
		}
	}
}
