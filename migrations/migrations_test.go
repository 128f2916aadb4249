package migrations

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestDialectsMatch checks that both dialects have the same versions, each
// with an up and a down file, and that Latest finds the highest.
func TestDialectsMatch(t *testing.T) {
	names := map[Dialect][]string{}
	for _, d := range []Dialect{Postgres, SQLite} {
		entries, err := fs.ReadDir(files, string(d))
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]bool{}
		for _, e := range entries {
			files[e.Name()] = true
		}
		var versions []string
		for name := range files {
			base, ok := strings.CutSuffix(name, ".up.sql")
			if !ok {
				if base, ok = strings.CutSuffix(name, ".down.sql"); !ok || !files[base+".up.sql"] {
					t.Errorf("%s/%s: not an up file, nor the down file of one", d, name)
				}
				continue
			}
			if !files[base+".down.sql"] {
				t.Errorf("%s/%s has no down file", d, name)
			}
			versions = append(versions, base)
		}
		slices.Sort(versions)
		names[d] = versions
	}
	if !slices.Equal(names[Postgres], names[SQLite]) {
		t.Errorf("the dialects differ: postgres %v, sqlite %v", names[Postgres], names[SQLite])
	}
	for d, versions := range names {
		latest, err := Latest(d)
		if err != nil || len(versions) == 0 || !strings.HasPrefix(versions[len(versions)-1], fmt.Sprintf("%06d_", latest)) {
			t.Errorf("Latest(%s) = %d, %v; the last file is %v", d, latest, err, versions)
		}
	}
}

// TestPrevious walks down from Latest with Previous: every step lands on
// a version that has files, and the walk ends at 0 below the first.
func TestPrevious(t *testing.T) {
	for _, d := range []Dialect{Postgres, SQLite} {
		v, err := Latest(d)
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for v != 0 {
			prev, err := Previous(d, v)
			if err != nil || prev >= v {
				t.Fatalf("%s: Previous(%d) = %d, %v", d, v, prev, err)
			}
			v = prev
			steps++
		}
		entries, err := fs.Glob(files, string(d)+"/*.up.sql")
		if err != nil || steps != len(entries) {
			t.Errorf("%s: %d steps down from Latest, %d up files (%v)", d, steps, len(entries), err)
		}
	}
}
