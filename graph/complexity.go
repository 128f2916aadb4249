package graph

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// ComplexityLimit is a handler extension that refuses an operation whose
// complexity, with its variables, passes Limit: each field costs 1 plus
// its children, unless the schema's complexity functions (Resolver's
// complexity) say otherwise, e.g. a page multiplies its items' cost by
// first/last.
//
// It replaces gqlgen's extension.ComplexityLimit, which walks every
// fragment again wherever it is spread: a document whose fragments each
// spread the next one twice costs it time doubling with every fragment.
// Here a fragment is priced once per operation (its fields and their
// arguments do not depend on where it is spread), so the walk is linear in
// the document.
type ComplexityLimit struct {
	Limit int

	es graphql.ExecutableSchema // set by Validate, when the handler takes the extension
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = &ComplexityLimit{}

// ExtensionName implements graphql.HandlerExtension.
func (*ComplexityLimit) ExtensionName() string { return "ComplexityLimit" }

// Validate implements graphql.HandlerExtension.
func (c *ComplexityLimit) Validate(es graphql.ExecutableSchema) error {
	if c.Limit < 1 {
		return errors.New("ComplexityLimit: Limit must be at least 1")
	}
	c.es = es
	return nil
}

// MutateOperationContext implements graphql.OperationContextMutator: it
// runs once the document is parsed and validated, before any resolver.
func (c *ComplexityLimit) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if opCtx.Operation == nil {
		return nil
	}
	w := complexityWalk{ctx: ctx, es: c.es, vars: opCtx.Variables, memo: map[string]int{}}
	if got := w.set(opCtx.Operation.SelectionSet); got > c.Limit {
		return limitError(ReasonComplexity, "the operation's complexity is %s, over the limit of %d; ask for fewer items (first/last) or fewer nested fields", atLeast(got), c.Limit)
	}
	return nil
}

// complexityWalk computes an operation's complexity, as gqlgen's
// complexity package does, each fragment once.
type complexityWalk struct {
	ctx  context.Context
	es   graphql.ExecutableSchema
	vars map[string]any
	memo map[string]int
}

func (w *complexityWalk) set(ss ast.SelectionSet) int {
	total := 0
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			total = add(total, w.field(s))
		case *ast.InlineFragment:
			total = add(total, w.set(s.SelectionSet))
		case *ast.FragmentSpread:
			c, ok := w.memo[s.Name]
			if !ok && s.Definition != nil {
				w.memo[s.Name] = 0 // a cycle; validation refused those already
				c = w.set(s.Definition.SelectionSet)
				w.memo[s.Name] = c
			}
			total = add(total, c)
		}
	}
	return total
}

// field is a field's cost: its schema complexity function's, given its
// children's cost and arguments, or 1 plus its children's. A field of an
// interface costs what it costs on the dearest of the interface's types.
func (w *complexityWalk) field(f *ast.Field) int {
	if f.Definition == nil || f.ObjectDefinition == nil {
		return 1
	}
	typ := w.es.Schema().Types[f.Definition.Type.Name()]
	if typ == nil || typ.Name == "__Schema" {
		return 0
	}
	children := 0
	switch typ.Kind {
	case ast.Object, ast.Interface, ast.Union:
		children = w.set(f.SelectionSet)
	}
	args := f.ArgumentMap(w.vars)
	objects := []*ast.Definition{f.ObjectDefinition}
	if f.ObjectDefinition.Kind == ast.Interface {
		objects = w.es.Schema().GetPossibleTypes(f.ObjectDefinition)
	}
	cost := 0
	for _, obj := range objects {
		c, ok := w.es.Complexity(w.ctx, obj.Name, f.Name, children, args)
		if !ok || c < 1 {
			c = add(1, children)
		}
		cost = max(cost, c)
	}
	return cost
}
