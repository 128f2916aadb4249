package store

import (
	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
)

// checkFilter checks a filter against a board of size n, as every layer
// does: solver.Filter.Validate.
func checkFilter(n int, f solver.Filter) error {
	if err := f.Validate(n); err != nil {
		return nqueens.Errorf(nqueens.EINVALID, "filter: %v", err)
	}
	return nil
}
