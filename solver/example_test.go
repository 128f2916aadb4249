package solver_test

import (
	"context"
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

func ExampleCount() {
	c, err := solver.Count(context.Background(), 8, solver.CountOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Total, c.Unique, c.Orbit4, c.Orbit8)
	// Output: 92 12 1 11
}

func ExampleAfter() {
	// The first three solutions of N=6, then the page after the first one.
	first, _ := solver.After(6, nil, 3)
	next, _ := solver.After(6, first[0], 2)
	fmt.Println(first)
	fmt.Println(next)
	// Output:
	// [1,3,5,0,2,4 2,5,1,4,0,3 3,0,4,1,5,2]
	// [2,5,1,4,0,3 3,0,4,1,5,2]
}

func ExampleCanonical() {
	p := solver.Placement{2, 0, 3, 1}
	fmt.Println(solver.Canonical(p), solver.OrbitSize(p))
	// A quarter turn leaves this solution unchanged; a mirror does not.
	for _, img := range solver.Images(p) {
		if img.Symmetry == solver.Rot90 || img.Symmetry == solver.ReflectVertical {
			fmt.Println(img.Symmetry, img.Placement)
		}
	}
	// Output:
	// 1,3,0,2 2
	// rot90 2,0,3,1
	// reflectVertical 1,3,0,2
}

func ExampleValidate() {
	fmt.Println(solver.Validate(solver.Placement{1, 3, 0, 2}))
	fmt.Println(solver.Validate(solver.Placement{0, 2, 1, 3}))
	// Output:
	// <nil>
	// rows 1 and 2 share an anti-diagonal (columns 2 and 1)
}
