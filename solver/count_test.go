package solver_test

import (
	"context"
	"flag"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

var countMax = flag.Int("count-max", 13, "largest N whose counts TestCountMatchesReference checks (up to 27; 16 takes seconds, 17 about 8 s a core)")

func TestCountMatchesReference(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for n := 1; n <= *countMax; n++ {
		got, err := solver.Count(context.Background(), n, solver.CountOptions{})
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		want := ref[n]
		if got.Total != want.Total || got.Unique != want.Unique ||
			got.Orbit1 != want.OrbitOfSingle || got.Orbit2 != want.Orbit2 || got.Orbit4 != want.Orbit4 || got.Orbit8 != want.Orbit8 {
			t.Errorf("N=%d: got %+v, want total %d unique %d orbits 1:%d 2:%d 4:%d 8:%d",
				n, got, want.Total, want.Unique, want.OrbitOfSingle, want.Orbit2, want.Orbit4, want.Orbit8)
		}
		if err := got.Check(); err != nil {
			t.Errorf("N=%d: %v", n, err)
		}
	}
}
