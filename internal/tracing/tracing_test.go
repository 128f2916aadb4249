package tracing

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// TestSetup: tracing is on when an endpoint is named (or the exporter is
// otlp), to the endpoint the variables say; off when nothing is named,
// when the SDK is disabled or the exporter is none, and then its spans
// record nothing; a value it cannot follow is refused with what is
// allowed.
func TestSetup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	for _, c := range []struct {
		env      map[string]string
		endpoint string // "": off
	}{
		{nil, ""},
		{map[string]string{EnvEndpoint: "http://collector:4318"}, "http://collector:4318/v1/traces"},
		{map[string]string{EnvEndpoint: "https://collector:4318/base/"}, "https://collector:4318/base/v1/traces"},
		{map[string]string{EnvEndpoint: "http://a:4318", EnvTracesEndpoint: "http://b:4318/traces"}, "http://b:4318/traces"},
		{map[string]string{EnvTracesExporter: "otlp"}, "http://localhost:4318/v1/traces"},
		{map[string]string{EnvTracesExporter: "otlp", EnvProtocol: "http/protobuf", EnvEndpoint: "http://c:4318"}, "http://c:4318/v1/traces"},
		{map[string]string{EnvTracesExporter: "none", EnvEndpoint: "http://collector:4318"}, ""},
		{map[string]string{EnvSDKDisabled: "true", EnvEndpoint: "http://collector:4318"}, ""},
		{map[string]string{EnvSDKDisabled: "false", EnvEndpoint: "http://collector:4318"}, "http://collector:4318/v1/traces"},
	} {
		tr, err := Setup(ctx, lookup(c.env), "test", logger)
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		if tr.On() != (c.endpoint != "") || tr.Endpoint() != c.endpoint {
			t.Errorf("%v: on %v, endpoint %q; want %q", c.env, tr.On(), tr.Endpoint(), c.endpoint)
		}
		_, span := tr.TracerProvider().Tracer("test").Start(ctx, "span")
		if span.IsRecording() != tr.On() {
			t.Errorf("%v: on %v but a span records: %v", c.env, tr.On(), span.IsRecording())
		}
		span.End()
		if _, isSDK := tr.TracerProvider().(*sdktrace.TracerProvider); isSDK != tr.On() {
			t.Errorf("%v: on %v with provider %T", c.env, tr.On(), tr.TracerProvider())
		}
		// No collector there: the last span is not exported.
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_ = tr.Shutdown(sctx)
		cancel()
	}
	for env, want := range map[string]string{
		EnvEndpoint + "=collector:4318":  EnvEndpoint + " must be an http:// or https:// URL",
		EnvTracesEndpoint + "=ftp://c/x": EnvTracesEndpoint + " must be an http:// or https:// URL",
		EnvProtocol + "=grpc":            EnvProtocol + "=grpc is not supported",
		EnvTracesProtocol + "=http/json": EnvTracesProtocol + "=http/json is not supported",
		EnvTracesExporter + "=console":   EnvTracesExporter + "=console is not supported; use otlp",
		EnvSDKDisabled + "=yes":          EnvSDKDisabled + " must be true or false",
	} {
		k, v, _ := strings.Cut(env, "=")
		if _, err := Setup(ctx, lookup(map[string]string{k: v}), "test", logger); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", env, err, want)
		}
	}
}

// TestLogHandler: a record made within a span carries its trace_id and
// span_id; one made outside any span carries neither.
func TestLogHandler(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	logger := slog.New(LogHandler(slog.NewTextHandler(&out, nil))).With("k", "v")
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer("test").Start(context.Background(), "span")
	logger.InfoContext(ctx, "inside")
	logger.InfoContext(context.Background(), "outside")
	span.End()
	inside, outside, _ := strings.Cut(out.String(), "\n")
	sc := span.SpanContext()
	if !strings.Contains(inside, "trace_id="+sc.TraceID().String()) || !strings.Contains(inside, "span_id="+sc.SpanID().String()) || !strings.Contains(inside, "k=v") {
		t.Errorf("record within the span: %q", inside)
	}
	if strings.Contains(outside, "trace_id") {
		t.Errorf("record outside any span: %q", outside)
	}
}
