//go:build loopsteps

package solver

import (
	"context"
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
)

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

// BenchmarkCountSteps counts N=16 and N=17 as Count does, task by task in
// the image orient picks (with the tables of meet.go), and reports the
// counting loop's steps, two-row endings and table lookups, for
// docs/PERFORMANCE.md's time per step (the time is not the counter's: the
// tally slows the loop). Symmetric frames' extra half-turn search is not
// the loop's and is left out.
func BenchmarkCountSteps(b *testing.B) {
	ref := oeis.MustLoad(b)
	for _, n := range []int{16, 17} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			tasks, err := Tasks(n)
			if err != nil {
				b.Fatal(err)
			}
			var steps, endings, lookups, total uint64
			for b.Loop() {
				steps, endings, lookups, total = 0, 0, 0, 0
				for _, task := range tasks {
					fs := orient(task)
					all := fs.count(context.Background(), true)
					images, _, _ := task.stabilizer()
					total += uint64(images) * all
					if fs.loop.err != nil {
						b.Fatalf("%v: %v", task, fs.loop.err)
					}
					steps += fs.loop.steps
					endings += fs.loop.endings
					lookups += fs.loop.lookups
				}
			}
			if total != ref[n].Total {
				b.Fatalf("N=%d: %d solutions, want %d", n, total, ref[n].Total)
			}
			b.ReportMetric(float64(steps), "steps")
			b.ReportMetric(float64(endings), "endings")
			b.ReportMetric(float64(lookups), "lookups")
		})
	}
}
