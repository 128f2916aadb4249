package graph

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/nqueens/nqueens/solver"
)

// Checks of arguments that several fields share.

// checkN checks a board size argument of the searched boards.
func checkN(n int) error {
	if n < 1 || n > solver.MaxSearchN {
		return badInput("n must be from 1 to %d (the largest board the search handles), got %d", solver.MaxSearchN, n)
	}
	return nil
}

// PrecomputeMaxN is the largest board the precompute mutation takes, as
// mutation.graphqls documents it: the engine's limit (precompute.MaxN,
// which cmd/nqueens checks it equals); graph does not import the engine.
const PrecomputeMaxN = 27

func checkPrecomputeN(n int) error {
	if n < 1 || n > PrecomputeMaxN {
		return badInput("n must be from 1 to %d (the largest board the precompute computes), got %d", PrecomputeMaxN, n)
	}
	return nil
}

// solutionArg checks a placement argument that must be a solution of a
// searched board.
func solutionArg(name string, cols []int) (solver.Placement, error) {
	p, err := placementArg(name, cols, nil, solver.MaxSearchN)
	var c *solver.Conflict
	if errors.As(err, &c) {
		return nil, badInput("%s: not a solution: %v; validate(placement:) checks placements without an error", name, c)
	}
	return p, err
}

// maxValidateN is the largest board validate checks; the request body
// limit usually bounds it first.
const maxValidateN = 1_000_000

// ArgumentError returns the error field of obj answers for args (as
// gqlgen hands them over, from the document or from JSON variables)
// before it does any work: nil when they are within range, or when the
// field's arguments do not bound its work (n, first, last). The server's
// answer price calls it before it prices a field by its arguments, so
// that complete(n: 1000000) is answered with the range of n rather than
// with the complexity it would have.
func (r *Resolver) ArgumentError(obj, field string, args map[string]any) error {
	var checks []error
	n, hasN := IntArg(args["n"])
	switch obj + "." + field {
	case "Query.solutions", "Query.uniqueSolutions":
		checks = append(checks, checkIntArg(hasN, n, checkN))
		fallthrough
	case "Board.solutions", "Board.uniqueSolutions":
		first, hasFirst := IntArg(args["first"])
		last, hasLast := IntArg(args["last"])
		_, _, err := r.pageArgs(optional(hasFirst, first), optional(hasLast, last))
		checks = append(checks, err)
	case "Query.board", "Query.count", "Query.solutionAt":
		checks = append(checks, checkIntArg(hasN, n, checkN))
	case "Query.complete":
		checks = append(checks, checkIntArg(hasN, n, checkCompleteN))
	}
	return errors.Join(checks...)
}

// checkIntArg runs check on an Int argument that was given.
func checkIntArg(given bool, v int, check func(int) error) error {
	if !given {
		return nil
	}
	return check(v)
}

func optional(given bool, v int) *int {
	if !given {
		return nil
	}
	return &v
}

// IntArg reads an Int argument as gqlgen hands it over (from the document
// or from JSON variables), false when it is absent or null; values past the
// 32 bits of an Int are clamped to them (the field refuses both). The
// answer pricer reads arguments with it too.
func IntArg(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(min(max(x, math.MinInt32), math.MaxInt32)), true
	case float64:
		return int(math.Max(math.Min(x, math.MaxInt32), math.MinInt32)), true
	case json.Number:
		n, err := x.Int64()
		return int(min(max(n, math.MinInt32), math.MaxInt32)), err == nil
	}
	return 0, false
}
