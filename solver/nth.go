package solver

// Nth returns the k-th placement (from 1) that walk visits, cloned, and
// how many it visited: the walk is stopped there. A nil placement means
// the walk ended with fewer than k; its error is returned as it is.
func Nth(k uint64, walk func(visit func(Placement) bool) error) (Placement, uint64, error) {
	var (
		seen  uint64
		found Placement
	)
	err := walk(func(p Placement) bool {
		if seen++; seen == k {
			found = p.Clone()
			return false
		}
		return true
	})
	return found, seen, err
}
