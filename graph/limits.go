package graph

import (
	"context"
	"errors"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The codes of the limit errors as the extensions raise them; the error
// presenter shows them as BAD_USER_INPUT with the code as the reason.
// Registered as protocol errors, so that HTTP answers them with 400 like
// any other document that fails validation.
const codeDepthLimit = ReasonDepth

func init() {
	errcode.RegisterErrorType(codeDepthLimit, errcode.KindProtocol)
	errcode.RegisterErrorType(ReasonComplexity, errcode.KindProtocol)
}

// DepthLimit is a handler extension (gqlgen has none) that refuses
// operations nested deeper than Max fields: Solution.canonical and
// SymmetryImage.solution let a query recurse without end. Fragments count
// where they are spread; introspection fields (__schema, __type, …) are
// not counted, so GraphiQL's introspection query passes any sensible
// limit.
type DepthLimit struct {
	Max int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = DepthLimit{}

// ExtensionName implements graphql.HandlerExtension.
func (DepthLimit) ExtensionName() string { return "DepthLimit" }

// Validate implements graphql.HandlerExtension.
func (d DepthLimit) Validate(graphql.ExecutableSchema) error {
	if d.Max < 1 {
		return errors.New("DepthLimit: Max must be at least 1")
	}
	return nil
}

// MutateOperationContext implements graphql.OperationContextMutator.
func (d DepthLimit) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	m := depthMeasure{frags: opCtx.Doc.Fragments, memo: map[string]int{}}
	if depth := m.depth(op.SelectionSet); depth > d.Max {
		err := gqlerror.Errorf("the operation nests fields %d deep; at most %d levels are allowed", depth, d.Max)
		errcode.Set(err, codeDepthLimit)
		return err
	}
	return nil
}

type depthMeasure struct {
	frags ast.FragmentDefinitionList
	memo  map[string]int // depth of each fragment, so spreads cost once
}

func (m *depthMeasure) depth(set ast.SelectionSet) int {
	deepest := 0
	for _, sel := range set {
		d := 0
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			d = 1 + m.depth(s.SelectionSet)
		case *ast.InlineFragment:
			d = m.depth(s.SelectionSet)
		case *ast.FragmentSpread:
			var ok bool
			if d, ok = m.memo[s.Name]; !ok {
				m.memo[s.Name] = 0 // a cycle (refused by validation anyway) ends here
				if f := m.frags.ForName(s.Name); f != nil {
					d = m.depth(f.SelectionSet)
				}
				m.memo[s.Name] = d
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
