package solver_test

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

func ExamplePlacement_Rows() {
	for _, row := range (solver.Placement{1, 3, 0, 2}).Rows() {
		fmt.Println(row)
	}
	// Output:
	// .Q..
	// ...Q
	// Q...
	// ..Q.
}

func ExamplePlacement_Chess() {
	p := solver.Placement{1, 3, 0, 2}
	fmt.Println(p.Chess())
	q, err := solver.ParseChess("D3 c1 B4 a2")
	fmt.Println(q, err)
	// Output:
	// a2 b4 c1 d3
	// 1,3,0,2 <nil>
}

func ExampleParsePlacement() {
	p, err := solver.ParsePlacement("[1, 3, 0, 2]")
	fmt.Println(p, err, solver.Validate(p))
	_, err = solver.ParsePlacement("1,-3,0,2")
	fmt.Println(err)
	// Output:
	// 1,3,0,2 <nil> <nil>
	// column 1 is negative: columns are integers ≥ 0 separated by commas or spaces, e.g. "1,3,0,2" or "[1, 3, 0, 2]"
}

func ExampleParseBoard() {
	for _, text := range []string{"a2 b4 c1 d3", ".Q..\n...Q\nQ...\n..Q.", "0 1 2 3"} {
		p, form, _ := solver.ParseBoard(text, "")
		conflicts, _ := solver.Conflicts(p)
		fmt.Println(form, p, len(conflicts))
	}
	// Output:
	// chess 1,3,0,2 0
	// rows 1,3,0,2 0
	// placement 0,1,2,3 3
}

func ExampleSolve() {
	p, err := solver.Solve(8)
	if err != nil {
		panic(err)
	}
	fmt.Println(p)
	fmt.Println(p.Chess())
	for _, row := range p.Rows() {
		fmt.Println(row)
	}
	// Output:
	// 3,6,2,7,1,4,0,5
	// a2 b4 c6 d8 e3 f1 g7 h5
	// ...Q....
	// ......Q.
	// ..Q.....
	// .......Q
	// .Q......
	// ....Q...
	// Q.......
	// .....Q..
}
