package server

import (
	"context"

	"github.com/nqueens/nqueens/graph"
	"github.com/vektah/gqlparser/v2/ast"
)

// What the tests of package server_test read of the server's insides.

// DocumentCost is what the query cache counts a parsed document at.
func DocumentCost(query string) int64 { return documentCost(query, nil) }

// RequestOverhead is what admission holds for a request besides its body.
const RequestOverhead = requestOverhead

// AnswerPrice is what the server prices an operation at before it runs.
type AnswerPrice = answerPrice

// PriceOperation prices op with vars as s does before running it.
func (s *Server) PriceOperation(op *ast.OperationDefinition, vars map[string]any) AnswerPrice {
	c := &answerPricer{Limit: s.cfg.ComplexityLimit, PageSize: s.cfg.Graph.DefaultPageSize, MaxPageSize: s.cfg.Graph.MaxPageSize, ArgumentError: s.resolver.ArgumentError}
	if err := c.Validate(graph.NewSchema(s.resolver)); err != nil {
		panic(err)
	}
	return c.Price(context.Background(), op, vars)
}
