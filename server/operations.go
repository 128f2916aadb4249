package server

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// Operation is a GraphQL query or mutation the server answered, as
// Config.OnOperation is told of it.
type Operation struct {
	// Name is the operation's name, "" when anonymous. For a document that
	// did not parse or validate it is the operationName the client sent.
	Name string
	// Outcome is "ok", or the extensions.code of the answer's first error.
	Outcome string
	// Duration runs from the start of the request's GraphQL handling
	// (parsing included) to the answer.
	Duration time.Duration
}

// OutcomeOK is the outcome of an answer without errors.
const OutcomeOK = "ok"

// operationWatcher is a gqlgen extension that sees every answer: it notes
// the operation's name for the request log and tells Config.OnOperation
// how each query and mutation went. A subscription's events are not
// operations of their own; only its name is noted.
type operationWatcher struct {
	observe func(Operation) // nil: names only
}

var (
	_ graphql.HandlerExtension    = operationWatcher{}
	_ graphql.ResponseInterceptor = operationWatcher{}
)

func (operationWatcher) ExtensionName() string                   { return "OperationWatcher" }
func (operationWatcher) Validate(graphql.ExecutableSchema) error { return nil }
func (w operationWatcher) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil || !graphql.HasOperationContext(ctx) {
		return resp // the end of a subscription, or a body that is not JSON
	}
	oc := graphql.GetOperationContext(ctx)
	name := oc.OperationName
	if oc.Operation != nil {
		name = oc.Operation.Name
	}
	noteOperation(ctx, name)
	if oc.Operation != nil && oc.Operation.Operation == ast.Query && len(resp.Errors) == 0 {
		noteCleanQuery(ctx)
	}
	if w.observe == nil || (oc.Operation != nil && oc.Operation.Operation == ast.Subscription) {
		return resp
	}
	op := Operation{Name: name, Outcome: OutcomeOK}
	if len(resp.Errors) > 0 {
		op.Outcome = "UNKNOWN"
		if code, ok := resp.Errors[0].Extensions["code"].(string); ok && code != "" {
			op.Outcome = code
		}
	}
	if !oc.Stats.OperationStart.IsZero() {
		op.Duration = time.Since(oc.Stats.OperationStart)
	}
	w.observe(op)
	return resp
}
