package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens/internal/tracing"
)

// tracerName names the spans this package makes.
const tracerName = "github.com/nqueens/nqueens/server"

// traceRequests makes a span of each request (otelhttp) around next, as a
// child of the client's W3C traceparent when it sends one. It goes
// around everything else, request log included, so that refusals (rate
// limit, admission, bad input) and answers from the answer cache have
// their span and status too. Probes and scrapes (quietPaths) make none.
//
// With the no-op provider (tracing off) only the incoming trace context is
// read, when there is one, so that log lines still carry the caller's
// trace id: otelhttp's attributes and wrappers would cost allocations
// for spans that record nothing.
func traceRequests(tp trace.TracerProvider, next http.Handler) http.Handler {
	if !tracing.Records(tp) {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Traceparent") != "" {
				r = r.WithContext(tracing.Propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
			}
			next.ServeHTTP(w, r)
		})
	}
	return otelhttp.NewHandler(next, "http.server",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(tracing.Propagator),
		// The metrics are Prometheus's (/metrics).
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelhttp.WithFilter(func(r *http.Request) bool { return !quietPaths[r.URL.Path] }),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + routeOf(r.URL.Path) }),
	)
}

// routeOf names the route a path takes, for span names: a few names, not
// one per URL.
func routeOf(path string) string {
	switch {
	case path == "/graphql", path == "/graphql/schema.graphql":
		return path
	case strings.HasPrefix(path, "/export/"):
		return "/export/{file}"
	case path == "/playground" || strings.HasPrefix(path, "/playground/"):
		return "/playground"
	case path == "/riverui" || strings.HasPrefix(path, "/riverui/"):
		return "/riverui"
	}
	return "/" // the viewer, and what is not found
}

// operationTracer is a gqlgen extension making a span of each query and
// mutation, named by its type and name ("query PageOfSolutions"), and one
// of each root field under it, where the work is (a board, a page of
// solutions, a count). Neither the document nor the variables go into
// the spans: they are the client's, and may be large.
type operationTracer struct {
	tracer trace.Tracer
}

var (
	_ graphql.HandlerExtension     = operationTracer{}
	_ graphql.OperationInterceptor = operationTracer{}
	_ graphql.FieldInterceptor     = operationTracer{}
)

func newOperationTracer(tp trace.TracerProvider) operationTracer {
	return operationTracer{tracer: tp.Tracer(tracerName)}
}

func (operationTracer) ExtensionName() string                   { return "OperationTracer" }
func (operationTracer) Validate(graphql.ExecutableSchema) error { return nil }

func (t operationTracer) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	// A subscription's events come over its websocket's life: its span
	// is the websocket's request.
	if oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return next(ctx)
	}
	kind := string(oc.Operation.Operation)
	name := kind
	if oc.Operation.Name != "" {
		name += " " + oc.Operation.Name
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithAttributes(
		attribute.String("graphql.operation.type", kind),
		attribute.String("graphql.operation.name", oc.Operation.Name)))
	h := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		defer span.End()
		resp := h(ctx)
		if resp != nil && len(resp.Errors) > 0 {
			code, _ := resp.Errors[0].Extensions["code"].(string)
			span.SetAttributes(attribute.Int("graphql.errors", len(resp.Errors)), attribute.String("graphql.error.code", code))
			span.SetStatus(codes.Error, resp.Errors[0].Message)
		}
		return resp
	}
}

func (t operationTracer) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver || (fc.Object != "Query" && fc.Object != "Mutation") || strings.HasPrefix(fc.Field.Name, "__") {
		return next(ctx)
	}
	ctx, end := t.startField(ctx, fc.Object, fc.Field.Field)
	res, err := next(ctx)
	end(err)
	return res, err
}

// startField starts the span of a root field of object; end ends it with
// the resolver's error. graph.DirectPages starts its root field's span
// here too, so a page has the same spans whoever writes it.
func (t operationTracer) startField(ctx context.Context, object string, f *ast.Field) (context.Context, func(error)) {
	ctx, span := t.tracer.Start(ctx, object+"."+f.Name, trace.WithAttributes(
		attribute.String("graphql.field.name", f.Name),
		attribute.String("graphql.field.alias", f.Alias)))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}
