package solver_test

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// Nth stops a walk at the k-th placement: here the third solution of N=6,
// then a k past the end, which names how many there were.
func ExampleNth() {
	walk := func(visit func(solver.Placement) bool) error {
		for p := range solver.All(6) {
			if !visit(p) {
				break
			}
		}
		return nil
	}
	p, seen, _ := solver.Nth(3, walk)
	fmt.Println(p, seen)
	p, seen, _ = solver.Nth(10, walk)
	fmt.Println(p == nil, seen)
	// Output:
	// 3,0,4,1,5,2 3
	// true 4
}
