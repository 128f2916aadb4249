package server_test

import (
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/nqueens/nqueens/internal/apitest"
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
