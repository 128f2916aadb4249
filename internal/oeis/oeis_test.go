package oeis_test

import (
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
)

// TestTable checks the copy kept in the repository: every N from 1 to 27,
// and the columns consistent with each other (for N > 1, rot180 = 8·unique
// − total − 2·rot90, as the table's header says).
func TestTable(t *testing.T) {
	t.Parallel()
	rows := oeis.MustLoad(t)
	for n := 1; n <= 27; n++ {
		r, ok := rows[n]
		if !ok {
			t.Fatalf("no row for N=%d", n)
		}
		if n > 1 && r.Rot180 != 8*r.Unique-r.Total-2*r.Rot90 {
			t.Errorf("N=%d: rot180 %d, want 8·%d − %d − 2·%d", n, r.Rot180, r.Unique, r.Total, r.Rot90)
		}
		if got := r.OrbitOfSingle + 2*r.Orbit2 + 4*r.Orbit4 + 8*r.Orbit8; got != r.Total {
			t.Errorf("N=%d: the orbits add up to %d solutions, want %d", n, got, r.Total)
		}
	}
	if rows[8].Total != 92 || rows[8].Unique != 12 {
		t.Errorf("N=8: %d solutions, %d unique; the table is not the published one", rows[8].Total, rows[8].Unique)
	}
}
