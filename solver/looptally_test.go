//go:build loopsteps

package solver

import "testing"

// TestSearchStepsAreTheLoops checks that searchSteps, by which orientation
// is fitted and judged, walks the tree of countFrom's loop itself: the
// same steps and endings for every image of every frame of N=8..14, the
// whole search run by the loop from its first searched row, and no index
// that a mask changes. It runs only in builds tagged loopsteps, where the
// loop counts its steps: go test -tags loopsteps ./solver.
func TestSearchStepsAreTheLoops(t *testing.T) {
	t.Parallel()
	var searches int
	for n := 8; n <= 14; n++ {
		tasks, err := Tasks(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			for _, s := range Symmetries {
				img := task.image(s)
				fs := newFrameSearch(img)
				if fs.last() < 3 {
					continue // the loop needs two rows below its first
				}
				var solutions uint64
				fs.walk(false, func(Placement) { solutions++ })
				total := fs.countFrom(fs.last(), 0, 0, 0)
				steps, endings := fs.searchSteps()
				if fs.loop.err != nil {
					t.Fatalf("%v: %v", img, fs.loop.err)
				}
				if fs.loop.steps != steps || fs.loop.endings != endings {
					t.Fatalf("%v: the loop took %d steps and %d endings, searchSteps says %d and %d",
						img, fs.loop.steps, fs.loop.endings, steps, endings)
				}
				if total != solutions {
					t.Fatalf("%v: the loop counted %d solutions, the plain search %d", img, total, solutions)
				}
				searches++
			}
		}
	}
	if searches < 1000 {
		t.Fatalf("only %d searches checked", searches)
	}
}
