package solver

import (
	"context"
	"testing"
)

// TestCountTaskMatchesItsSolutions checks countTask's orbit arithmetic
// against the solutions themselves: the counts of a task equal those of
// the solutions with any image of its frame, listed one by one and each
// classified by its own symmetries. It checks every task of N=4..11 and,
// up to N=16, every task whose frame a half turn keeps, where the
// arithmetic is; each kind of frame (no symmetry, kept by a half turn,
// kept by a quarter turn) is met with classes of every size it can hold.
func TestCountTaskMatchesItsSolutions(t *testing.T) {
	t.Parallel()
	met := map[string]Counts{} // by the frame's symmetry
	for n := 4; n <= 16; n++ {
		tasks, err := Tasks(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			kind := frameSymmetry(task)
			if n > 11 && kind == "none" {
				continue
			}
			var want Counts
			seen := map[int]bool{}
			for _, s := range Symmetries {
				img := task.image(s)
				if seen[img.key()] {
					continue
				}
				seen[img.key()] = true
				newFrameSearch(img).walk(false, func(p Placement) {
					want.AddSolution(IsCanonical(p), OrbitSize(p))
				})
			}
			if got := countTask(context.Background(), task, true); got != want {
				t.Errorf("%v (symmetry: %s): countTask says %+v, its solutions %+v", task, kind, got, want)
			}
			m := met[kind]
			m.Add(want)
			met[kind] = m
		}
	}
	for kind, sizes := range map[string][]uint64{"none": {8}, "half turn": {8, 4}, "quarter turn": {8, 4, 2}} {
		m := met[kind]
		for i, classes := range []uint64{m.Orbit8, m.Orbit4, m.Orbit2}[:len(sizes)] {
			if classes == 0 {
				t.Errorf("frames kept by %s: no class of %d met, that case is not checked", kind, sizes[i])
			}
		}
	}
}

// frameSymmetry names the turns that keep the task's frame as it is.
func frameSymmetry(task Task) string {
	switch _, half, quarter := task.stabilizer(); {
	case quarter:
		return "quarter turn"
	case half:
		return "half turn"
	}
	return "none"
}
