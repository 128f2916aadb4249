package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/tracing"
	"github.com/nqueens/nqueens/server"
)

// TestTracingOffKeepsCallersTrace: with tracing off (the no-op provider)
// no span is recorded, but a request that carries a W3C traceparent has
// the caller's trace id in its log line, and one without has none.
func TestTracingOffKeepsCallersTrace(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(cfg *server.Config) {
		cfg.Logger = slog.New(tracing.LogHandler(cfg.Logger.Handler()))
		cfg.TracerProvider = noop.NewTracerProvider()
	})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, c := range []struct{ name, traceparent string }{{"Traced", "00-" + traceID + "-00f067aa0ba902b7-01"}, {"Untraced", ""}} {
		var header []string
		if c.traceparent != "" {
			header = []string{"traceparent", c.traceparent}
		}
		if r := b.Post(t, apitest.Request{Query: "query " + c.name + " { __typename }"}, header...); r.Status != 200 {
			t.Fatalf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	for line := range strings.SplitSeq(b.Logs.String(), "\n") {
		traced := strings.Contains(line, "trace_id="+traceID+" span_id=00f067aa0ba902b7")
		if strings.Contains(line, "operation=Traced") && !traced {
			t.Errorf("the traced request's line lacks the caller's trace: %s", line)
		}
		if strings.Contains(line, "operation=Untraced") && strings.Contains(line, "trace_id") {
			t.Errorf("the untraced request's line has a trace: %s", line)
		}
	}
	if !strings.Contains(b.Logs.String(), "operation=Traced") || !strings.Contains(b.Logs.String(), "operation=Untraced") {
		t.Errorf("request lines missing:\n%s", b.Logs.String())
	}
}

// TestTracingWebsocket: with tracing on, a websocket still upgrades
// through the HTTP span's wrapper, and a query sent over it has its
// operation span; the socket's own span ends when it closes.
func TestTracingWebsocket(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	b := apitest.Setup(t, func(cfg *server.Config) { cfg.TracerProvider = tp })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sub := b.Subscribe(t, ctx, "query OverSocket { __typename }", nil)
	if m := sub.Read(t); m.Type != "next" || !strings.Contains(string(m.Payload), `"__typename":"Query"`) {
		t.Fatalf("the query's answer: %+v", m)
	}
	sub.Close()
	eventually.True(t, time.Minute, func() string {
		var names []string
		for _, s := range spans.GetSpans() {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, ", "); !strings.Contains(got, "query OverSocket") || !strings.Contains(got, "GET /graphql") {
			return "spans: " + got + "; want the operation's and the socket's"
		}
		return ""
	})
}

// TestTracingRefusals: a request refused by the rate limit, and one
// answered from the answer cache, still have their HTTP span, with their
// status; the refused one has no operation span (it never ran).
func TestTracingRefusals(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	b := apitest.Setup(t, func(cfg *server.Config) {
		cfg.TracerProvider = tp
		// A burst of 2 and then one request a minute.
		cfg.RateLimit, cfg.RateBurst = 1.0/60, 2
	})
	req := apitest.Request{Query: "query Cached { count(n: 6) { total } }"}
	statuses := []int{}
	for range 3 {
		statuses = append(statuses, b.Post(t, req).Status)
	}
	if statuses[0] != 200 || statuses[1] != 200 || statuses[2] != 429 {
		t.Fatalf("statuses %v, want 200, 200 (from the answer cache), 429", statuses)
	}
	var https []string
	ops := 0
	for _, s := range spans.GetSpans() {
		switch s.Name {
		case "POST /graphql":
			for _, kv := range s.Attributes {
				if kv.Key == "http.response.status_code" {
					https = append(https, kv.Value.String())
				}
			}
		case "query Cached":
			ops++
		}
	}
	if strings.Join(https, ",") != "200,200,429" || ops != 1 {
		t.Errorf("HTTP spans' statuses %v, operation spans %d; want 200,200,429 and one (the cached answer and the refusal ran nothing)", https, ops)
	}
}

// TestTracingBoundsAttributes attacks the spans' memory: a request with
// a User-Agent and a path of 12 KiB each (within --max-header-bytes) has
// them in its span cut to tracing.MaxAttributeBytes, so that the spans
// waiting for export hold kilobytes each, not what clients send.
func TestTracingBoundsAttributes(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := tracing.NewTracerProvider(sdktrace.WithSyncer(spans))
	b := apitest.Setup(t, func(cfg *server.Config) { cfg.TracerProvider = tp })
	long := strings.Repeat("x", 12<<10) // both within the default 32 KiB of headers
	r := b.Raw(t, "GET", b.Base+"/"+long, nil, "User-Agent", long)
	if r.Status != 404 && r.Status != 200 {
		t.Fatalf("GET of a long path: %d", r.Status)
	}
	got := spans.GetSpans()
	if len(got) != 1 {
		t.Fatalf("%d spans, want the request's", len(got))
	}
	seen := 0
	for _, kv := range got[0].Attributes {
		if v := kv.Value.String(); len(v) > tracing.MaxAttributeBytes {
			t.Errorf("attribute %s holds %d bytes, more than %d", kv.Key, len(v), tracing.MaxAttributeBytes)
		} else if strings.HasPrefix(strings.TrimPrefix(v, "/"), "xxxx") {
			seen++
		}
	}
	if seen != 2 {
		t.Errorf("the path and the User-Agent are not both in the span, cut: %v", got[0].Attributes)
	}
}
