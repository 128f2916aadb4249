package solver_test

import (
	"slices"
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
