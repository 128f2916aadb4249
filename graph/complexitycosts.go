package graph

import (
	"github.com/99designs/gqlgen/graphql"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// The schema's complexity functions: what each field costs, priced by
// the server before the operation runs.

// Complexity costs of the fields that multiply or are heavy; every other
// field costs 1. The limit itself is set by the HTTP layer.
func (r *Resolver) complexity() ComplexityRoot {
	var c ComplexityRoot
	size := func(first, last *int) int {
		switch {
		case first != nil && *first > 0:
			return *first
		case last != nil && *last > 0:
			return *last
		case first != nil || last != nil:
			return 1
		}
		return r.opts.DefaultPageSize
	}
	// A filter makes a listing or a count a search (its totalCount a
	// count), bounded by the solver budget like any; it costs as much as
	// finding one solution by rank.
	filtered := func(where *SolutionFilter) int {
		if where != nil && len(where.Queens)+len(where.Empty) > 0 {
			return filterComplexity
		}
		return 0
	}
	conn := func(child int, first, last *int, where *SolutionFilter) int {
		return 1 + size(first, last)*child + filtered(where)
	}
	c.Query.Solutions = func(child int, _ int, first *int, _ *string, last *int, _ *string, where *SolutionFilter) int {
		return conn(child, first, last, where)
	}
	c.Query.UniqueSolutions = c.Query.Solutions
	c.Board.Solutions = func(child int, first *int, _ *string, last *int, _ *string, where *SolutionFilter) int {
		return conn(child, first, last, where)
	}
	c.Board.UniqueSolutions = c.Board.Solutions
	c.Query.Boards = func(child int, _ *store.BoardState) int { return 1 + solver.MaxSearchN*child }
	c.Solution.Symmetries = func(child int) int { return 1 + 8*child }
	c.Solution.Svg = func(child int, _ int) int { return 10 }
	c.Solution.Matrix = func(child int) int { return 4 }
	c.Query.SolutionAt = func(child int, _ int, _ BigInt, _ *bool) int { return 50 + child }
	c.Query.Count = func(child int, _ int, where *SolutionFilter) int { return 10 + child + filtered(where) }
	// A count's statistics may be a tally by the solver, a filtered count's
	// cost whether or not the count has a filter (the field does not see it).
	c.CountResult.SquareCounts = func(int) int { return filterComplexity }
	c.CountResult.UniqueSquareCounts = c.CountResult.SquareCounts
	// A completion's placement has n numbers: a tenth as dear as a page
	// of solutions with as many numbers in them.
	c.Query.Complete = func(child int, n int, _, _ []*SquareInput) int { return 10 + child + max(n, 0)/10 }
	return c
}

// filterComplexity is what a filter adds to a listing's or a count's
// complexity: what solutionAt's search costs.
const filterComplexity = 50

// NewSchema returns the executable schema over r, with the complexity
// costs above.
func NewSchema(r *Resolver) graphql.ExecutableSchema {
	return NewExecutableSchema(Config{Resolvers: r, Complexity: r.complexity()})
}
