package solver

import (
	"flag"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"testing"
)

var fitOrientation = flag.Bool("fit-orientation", false, "fit orientWeights to the steps of N=15 and print them (takes seconds)")

// searchCost is the work of countFrom's loop over a whole frame search: its
// steps, and each two-row ending at 0.6 of a step. Orientation is judged
// and fitted by it.
func (fs *frameSearch) searchCost() float64 {
	steps, endings := fs.searchSteps()
	return float64(steps) + 0.6*float64(endings)
}

// searchSteps walks the tree countFrom's loop walks from the first
// searched row, with the same look-ahead, and returns the loop's steps
// (squares tried) and two-row endings (squares of a child finished without
// a node). It is slower than countFrom, and serves only these tests;
// TestSearchStepsAreTheLoops (go test -tags loopsteps) checks it against
// the steps of the loop itself.
func (fs *frameSearch) searchSteps() (steps, endings uint64) {
	var walk func(d int, cols, ld, rd uint32)
	walk = func(d int, cols, ld, rd uint32) {
		avail := fs.below[d] &^ (cols | ld | rd)
		s := fs.shift[d] & 31
		for avail != 0 {
			bit := avail & -avail
			avail ^= bit
			steps++
			ncols, nld, nrd := cols|bit, (ld|bit)<<s, (rd|bit)>>s
			next := fs.below[d-1] &^ (ncols | nld | nrd)
			s2 := fs.shift[d-1] & 31
			if next == 0 || fs.below[d-2]&^(ncols|nld<<s2|nrd>>s2) == 0 {
				continue
			}
			if d > 3 {
				walk(d-1, ncols, nld, nrd)
			} else {
				endings += uint64(bits.OnesCount32(next))
			}
		}
	}
	walk(fs.last(), 0, 0, 0)
	return steps, endings
}

// frameImages are the 8 images of one frame, as searches, with their costs.
type frameImages struct {
	tasks    [8]Task
	features [8][orientFeatureCount]float64
	costs    [8]float64
}

// imagesOf returns the images of every asymmetric frame of n (the ones
// orient serves).
func imagesOf(t *testing.T, n int) []frameImages {
	t.Helper()
	tasks, err := Tasks(n)
	if err != nil {
		t.Fatal(err)
	}
	var out []frameImages
	for _, task := range tasks {
		if _, half, _ := task.stabilizer(); half {
			continue
		}
		var fi frameImages
		for i, s := range Symmetries {
			img := task.image(s)
			fs := newFrameSearch(img)
			fi.tasks[i], fi.features[i], fi.costs[i] = img, fs.orientFeatures(img), fs.searchCost()
		}
		out = append(out, fi)
	}
	return out
}

// chosenCost is the cost of the images that weights choose, with orient's
// tie-break.
func chosenCost(frames []frameImages, weights [orientFeatureCount]float64) float64 {
	total := 0.0
	for _, fi := range frames {
		best, bestCost := 0, 0.0
		for i, f := range fi.features {
			cost := 0.0
			for j, x := range f {
				cost += weights[j] * x
			}
			if i == 0 || cost < bestCost || cost == bestCost && fi.tasks[i].key() < fi.tasks[best].key() {
				best, bestCost = i, cost
			}
		}
		total += fi.costs[best]
	}
	return total
}

func oracleCost(frames []frameImages) (oracle, canonical float64) {
	for _, fi := range frames {
		oracle += min(fi.costs[0], fi.costs[1], fi.costs[2], fi.costs[3], fi.costs[4], fi.costs[5], fi.costs[6], fi.costs[7])
		canonical += fi.costs[0] // Identity: the task itself, its canonical image
	}
	return oracle, canonical
}

func TestOrientationNearOracle(t *testing.T) {
	t.Parallel()
	frames := imagesOf(t, 13)
	var chosen float64
	for _, fi := range frames {
		fs := orient(fi.tasks[0])
		chosen += fs.searchCost()
	}
	if byWeights := chosenCost(frames, orientWeights); byWeights != chosen {
		t.Fatalf("orient's images cost %.0f, the weights' choice %.0f", chosen, byWeights)
	}
	oracle, canonical := oracleCost(frames)
	t.Logf("N=13: chosen images %.0f, best images %.0f, canonical images %.0f", chosen, oracle, canonical)
	if chosen > 1.08*oracle {
		t.Errorf("chosen images cost %.0f, more than 8%% over the best %.0f", chosen, oracle)
	}
	if chosen > 0.75*canonical {
		t.Errorf("chosen images cost %.0f, not a quarter below the canonical images' %.0f", chosen, canonical)
	}
}

// TestFitOrientation fits orientWeights again (with -fit-orientation): least
// squares on each image's log cost less its frame's mean, so that only the
// differences between a frame's images are fitted, with a constant term
// that the choice ignores.
func TestFitOrientation(t *testing.T) {
	if !*fitOrientation {
		t.Skip("fits only with -fit-orientation")
	}
	const k = orientFeatureCount + 1 // and the constant
	var normal [k][k + 1]float64
	for _, fi := range imagesOf(t, 15) {
		mean := 0.0
		for _, c := range fi.costs {
			mean += math.Log(c+1) / 8
		}
		for i, f := range fi.features {
			x := append(f[:], 1)
			y := math.Log(fi.costs[i]+1) - mean
			for a := range k {
				for b := range k {
					normal[a][b] += x[a] * x[b]
				}
				normal[a][k] += x[a] * y
			}
		}
	}
	w := solveLinear(normal)
	var weights [orientFeatureCount]float64
	copy(weights[:], w[:orientFeatureCount])
	var out strings.Builder
	for _, x := range weights {
		fmt.Fprintf(&out, "%.3f, ", x)
	}
	t.Logf("orientWeights: %s", out.String())

	check := imagesOf(t, 14)
	oracle, _ := oracleCost(check)
	fitted := chosenCost(check, weights)
	t.Logf("N=14: fitted weights' images %.0f, best images %.0f", fitted, oracle)
	if fitted > 1.08*oracle {
		t.Errorf("fitted weights choose images costing %.0f, more than 8%% over the best %.0f", fitted, oracle)
	}
}

// solveLinear solves the normal equations, given as their augmented
// matrix, by Gauss-Jordan elimination with partial pivoting.
func solveLinear(m [orientFeatureCount + 1][orientFeatureCount + 2]float64) []float64 {
	const k = orientFeatureCount + 1
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		for r := range k {
			if r != c {
				f := m[r][c] / m[c][c]
				for j := c; j <= k; j++ {
					m[r][j] -= f * m[c][j]
				}
			}
		}
	}
	x := make([]float64, k)
	for i := range x {
		x[i] = m[i][k] / m[i][i]
	}
	return x
}
