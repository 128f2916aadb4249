package service_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/internal/tracing"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// TestTracePageRequest wires the real server over the real Postgres store
// and workers as serve does, with an SDK tracer provider exporting to
// memory: the precompute of N=8 makes River job spans with the SQL of the
// job under them; then one page request that carries a W3C traceparent
// makes HTTP → GraphQL operation → root field → SQL spans, each the child
// of the one before, all in the incoming trace; the operation's span
// carries its name but neither its document nor its variables, and the
// request's log line carries the trace id. A precompute mutation's trace
// holds the insertion of its job, whose span, in a trace of its own,
// links back to it.
func TestTracePageRequest(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	workers := precompute.DefaultConfig()
	workers.Workers, workers.TracerProvider = 1, tp
	workers.Logger = slog.New(slog.DiscardHandler)
	up := service.NewStartup(service.Config{Database: service.Database{URL: u}, Migrate: true, Workers: workers,
		Precompute: "8", Logger: workers.Logger})
	t.Cleanup(up.Close)
	b := apitest.Setup(t, func(cfg *server.Config) {
		cfg.Graph.Boards, cfg.Graph.Stored, cfg.Graph.Plans, cfg.Graph.Precompute = up.Store(), up.Store(), up, up
		cfg.Logger = slog.New(tracing.LogHandler(cfg.Logger.Handler()))
		cfg.TracerProvider = tp
		cfg.Graph.AdminToken = "s3cret"
	})
	if err := up.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, time.Minute, func() string {
		var out struct{ Board struct{ State string } }
		b.Query(t, `{ board(n: 8) { state } }`, nil, &out)
		if out.Board.State != "DONE" {
			return "board 8 is " + out.Board.State
		}
		return ""
	})

	// The precompute: a span per job worked, the job's statements under it.
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans.GetSpans() {
		byID[s.SpanContext.SpanID()] = s
	}
	jobs, jobSQL := map[string]int{}, 0
	for _, s := range byID {
		if kind, ok := strings.CutPrefix(s.Name, "river.work/"); ok {
			jobs[kind]++
		}
		if p, ok := byID[s.Parent.SpanID()]; ok && strings.HasPrefix(p.Name, "river.work/") && attr(s, "db.system.name") == "postgresql" {
			jobSQL++
		}
	}
	if jobs["board"] != 1 || jobs["chunk"] == 0 || jobSQL == 0 {
		t.Errorf("job spans: %v, SQL spans under them: %d; want one board job, chunk jobs, and their SQL", jobs, jobSQL)
	}

	spans.Reset()
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	remote, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	const query = `query PageOfSolutions($n: Int!) { solutions(n: $n, first: 5) { edges { node { placement } } } }`
	r := b.Post(t, apitest.Request{Query: query, Variables: map[string]any{"n": 8}},
		"traceparent", "00-"+traceID.String()+"-"+remote.String()+"-01")
	if r.Status != 200 || len(r.Errors) > 0 {
		t.Fatalf("page: %d %s", r.Status, r.Raw)
	}
	got := spans.GetSpans()
	find := func(name string, parent trace.SpanID) tracetest.SpanStub {
		t.Helper()
		for _, s := range got {
			if s.Name == name && s.Parent.SpanID() == parent {
				if s.SpanContext.TraceID() != traceID {
					t.Errorf("span %s is in trace %s, want the incoming %s", name, s.SpanContext.TraceID(), traceID)
				}
				return s
			}
		}
		t.Fatalf("no span %q under span %s; spans: %s", name, parent, names(got))
		return tracetest.SpanStub{}
	}
	httpSpan := find("POST /graphql", remote)
	if attr(httpSpan, "http.response.status_code") != "200" {
		t.Errorf("HTTP span's status: %q", attr(httpSpan, "http.response.status_code"))
	}
	op := find("query PageOfSolutions", httpSpan.SpanContext.SpanID())
	if attr(op, "graphql.operation.name") != "PageOfSolutions" || attr(op, "graphql.operation.type") != "query" {
		t.Errorf("operation span's attributes: %v", op.Attributes)
	}
	field := find("Query.solutions", op.SpanContext.SpanID())
	sql := find("SELECT", field.SpanContext.SpanID())
	if !strings.Contains(attr(sql, "db.query.text"), "solutions") {
		t.Errorf("SQL span's statement: %q", attr(sql, "db.query.text"))
	}
	// Neither the document nor the variables in any span.
	for _, s := range got {
		for _, kv := range s.Attributes {
			if v := kv.Value.String(); strings.Contains(v, "PageOfSolutions(") || strings.Contains(v, "placement }") || strings.Contains(string(kv.Key), "variables") || strings.Contains(string(kv.Key), "document") {
				t.Errorf("span %s carries the request's document or variables: %s=%s", s.Name, kv.Key, v)
			}
		}
	}
	// The request's log line leads to the trace.
	var line string
	for l := range strings.SplitSeq(b.Logs.String(), "\n") {
		if strings.Contains(l, "msg=request") && strings.Contains(l, "operation=PageOfSolutions") {
			line = l
		}
	}
	if !strings.Contains(line, "trace_id="+traceID.String()) || !strings.Contains(line, "span_id="+httpSpan.SpanContext.SpanID().String()) {
		t.Errorf("request log line %q: want trace_id=%s span_id=%s", line, traceID, httpSpan.SpanContext.SpanID())
	}

	asked, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	r = b.Post(t, apitest.Request{Query: `mutation AskNine { precompute(n: 9) { n } }`},
		"Authorization", "Bearer s3cret", "traceparent", "00-"+asked.String()+"-b7ad6b7169203331-01")
	if r.Status != 200 || len(r.Errors) > 0 {
		t.Fatalf("precompute: %d %s", r.Status, r.Raw)
	}
	eventually.True(t, time.Minute, func() string {
		var inserted, linked bool
		for _, s := range spans.GetSpans() {
			if s.Name == "river.insert_many" && s.SpanContext.TraceID() == asked {
				inserted = true
			}
			for _, l := range s.Links {
				if s.Name == "river.work/board" && l.SpanContext.TraceID() == asked {
					linked = s.SpanContext.TraceID() != asked
				}
			}
		}
		if !inserted || !linked {
			return fmt.Sprintf("insertion in the mutation's trace %v, board job linked to it %v; spans: %s", inserted, linked, names(spans.GetSpans()))
		}
		return ""
	})
}

func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

func names(spans tracetest.SpanStubs) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "\n  %s %s (parent %s)", s.Name, s.SpanContext.SpanID(), s.Parent.SpanID())
	}
	return b.String()
}
