package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracerName names the spans this package makes.
const tracerName = "github.com/nqueens/nqueens/store/postgres"

// queryTracer makes a span of each SQL statement and COPY run within a
// span being recorded (a request's, a job's): pgx's tracer hooks, after
// OpenTelemetry's database conventions. Statements outside one (River
// polling for jobs, the heartbeats) make none, so that they do not fill
// the traces with roots of their own. The statement's text goes into
// the span, its arguments do not.
type queryTracer struct {
	tracer trace.Tracer
}

var (
	_ pgx.QueryTracer    = queryTracer{}
	_ pgx.CopyFromTracer = queryTracer{}
)

func newQueryTracer(tp trace.TracerProvider) queryTracer {
	return queryTracer{tracer: tp.Tracer(tracerName)}
}

func (t queryTracer) start(ctx context.Context, name string, attrs ...attribute.KeyValue) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	ctx, _ = t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(append(attrs, attribute.String("db.system.name", "postgresql"))...))
	return ctx
}

// end ends the span start began, if it did (ctx is start's).
func end(ctx context.Context, tag pgconn.CommandTag, err error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			span.SetAttributes(attribute.String("db.response.status_code", pgErr.Code))
		}
		span.SetStatus(codes.Error, err.Error())
	} else {
		span.SetAttributes(attribute.Int64("db.response.affected_rows", tag.RowsAffected()))
	}
	span.End()
}

func (t queryTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx // before operationOf, which allocates
	}
	op := operationOf(data.SQL)
	return t.start(ctx, op, attribute.String("db.operation.name", op), attribute.String("db.query.text", data.SQL))
}

func (queryTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	end(ctx, data.CommandTag, data.Err)
}

func (t queryTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	table := data.TableName.Sanitize()
	return t.start(ctx, "COPY "+table, attribute.String("db.operation.name", "COPY"), attribute.String("db.collection.name", table))
}

func (queryTracer) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromEndData) {
	end(ctx, data.CommandTag, data.Err)
}

// operationOf is a statement's first word, upper case (SELECT, UPDATE,
// WITH…): the span's name.
func operationOf(sql string) string {
	sql = strings.TrimSpace(sql)
	if i := strings.IndexAny(sql, " \t\n("); i > 0 {
		sql = sql[:i]
	}
	return strings.ToUpper(sql)
}
