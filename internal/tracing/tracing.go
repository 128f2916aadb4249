// Package tracing sets up OpenTelemetry tracing from the standard OTEL_*
// environment variables: on when an OTLP endpoint is given (or
// OTEL_TRACES_EXPORTER=otlp), spans then go over OTLP/HTTP in batches;
// off otherwise, with the no-op provider, whose spans record nothing.
// The packages that make spans (server, store/postgres, precompute) take
// the provider in their configuration; cmd/nqueens wires them.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// DefaultServiceName names the service in spans when OTEL_SERVICE_NAME
// does not.
const DefaultServiceName = "nqueens"

// The variables Setup reads itself. The exporter and the SDK read the
// others (OTEL_EXPORTER_OTLP_HEADERS, …_TIMEOUT, OTEL_TRACES_SAMPLER,
// OTEL_BSP_*, OTEL_RESOURCE_ATTRIBUTES) from the process's environment.
const (
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvServiceName    = "OTEL_SERVICE_NAME"
)

// defaultEndpoint is OTLP/HTTP's standard address, for
// OTEL_TRACES_EXPORTER=otlp without an endpoint.
const defaultEndpoint = "http://localhost:4318"

// Propagator reads and writes the W3C trace context (traceparent,
// tracestate) and baggage headers.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Tracing is the tracer provider a process makes its spans with.
type Tracing struct {
	provider trace.TracerProvider
	sdk      *sdktrace.TracerProvider // nil when off
	endpoint string
}

// Off is tracing turned off: the no-op provider.
func Off() *Tracing { return &Tracing{provider: noop.NewTracerProvider()} }

// Setup reads the OTEL_* variables through lookupEnv and returns tracing
// on (an OTLP/HTTP exporter behind a batching processor) or off. A
// variable it cannot follow is an error that says what is allowed.
// version is the service.version of the spans; export errors go to
// logger.
func Setup(ctx context.Context, lookupEnv func(string) (string, bool), version string, logger *slog.Logger) (*Tracing, error) {
	get := func(name string) string {
		v, _ := lookupEnv(name)
		return strings.TrimSpace(v)
	}
	if disabled := strings.ToLower(get(EnvSDKDisabled)); disabled == "true" {
		return Off(), nil
	} else if disabled != "" && disabled != "false" {
		return nil, fmt.Errorf("%s must be true or false, got %q", EnvSDKDisabled, get(EnvSDKDisabled))
	}
	endpoint, err := endpointOf(get)
	if endpoint == "" || err != nil {
		return Off(), err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", cmpOr(get(EnvServiceName), DefaultServiceName)),
		attribute.String("service.version", version)))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	// Export errors (a collector down) are the process's to log, once
	// each, not the SDK's to print on stderr in its own format.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { logger.Warn("tracing: spans not exported", "error", err) }))
	sdk := NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{provider: sdk, sdk: sdk, endpoint: endpoint}, nil
}

// MaxAttributeBytes bounds the value of each attribute of a span unless
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise: a client's
// headers (its User-Agent, up to --max-header-bytes) and path go into the
// request's span, and the spans waiting for export (2048 at most,
// OTEL_BSP_MAX_QUEUE_SIZE) must not hold megabytes of them. The longest
// value of our own, a statement's text, is well under it.
const MaxAttributeBytes = 2048

// NewTracerProvider is the SDK's tracer provider with this service's
// bounds (MaxAttributeBytes, and the SDK's own on attributes, events and
// links per span) and opts: Setup's, with the OTLP exporter, and the
// tests', with exporters of their own.
func NewTracerProvider(opts ...sdktrace.TracerProviderOption) *sdktrace.TracerProvider {
	limits := sdktrace.NewSpanLimits()
	if limits.AttributeValueLengthLimit < 0 {
		limits.AttributeValueLengthLimit = MaxAttributeBytes
	}
	return sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithRawSpanLimits(limits)}, opts...)...)
}

// endpointOf is where spans go ("" for nowhere) as the variables say.
func endpointOf(get func(string) string) (string, error) {
	exporter := strings.ToLower(get(EnvTracesExporter))
	switch exporter {
	case "", "otlp":
	case "none":
		return "", nil
	default:
		return "", fmt.Errorf("%s=%s is not supported; use otlp (OTLP over HTTP) or none", EnvTracesExporter, get(EnvTracesExporter))
	}
	for _, name := range []string{EnvTracesProtocol, EnvProtocol} {
		if p := get(name); p != "" && p != "http/protobuf" {
			return "", fmt.Errorf("%s=%s is not supported; spans go over OTLP/HTTP: http/protobuf", name, p)
		}
	}
	endpoint, name := get(EnvTracesEndpoint), EnvTracesEndpoint
	if endpoint == "" {
		// The general endpoint is a base: traces go to its /v1/traces.
		if base := get(EnvEndpoint); base != "" {
			endpoint, name = strings.TrimSuffix(base, "/")+"/v1/traces", EnvEndpoint
		}
	}
	if endpoint == "" {
		if exporter == "" {
			return "", nil
		}
		endpoint = defaultEndpoint + "/v1/traces"
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s must be an http:// or https:// URL such as http://collector:4318, got %q", name, get(name))
	}
	return endpoint, nil
}

func cmpOr(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// Records reports whether tp may record spans: it is neither nil nor the
// no-op provider. The packages that make spans install nothing when it
// does not, so that tracing off costs nothing.
func Records(tp trace.TracerProvider) bool {
	_, off := tp.(noop.TracerProvider)
	return tp != nil && !off
}

// On reports whether spans are recorded and exported.
func (t *Tracing) On() bool { return t.sdk != nil }

// Endpoint is where spans go ("" when off).
func (t *Tracing) Endpoint() string { return t.endpoint }

// TracerProvider is the provider to make spans with: the SDK's, or the
// no-op one when off.
func (t *Tracing) TracerProvider() trace.TracerProvider { return t.provider }

// Shutdown exports the spans not exported yet and stops the exporter
// (bounded by ctx). Off, it does nothing.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t.sdk == nil {
		return nil
	}
	if err := t.sdk.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("tracing: exporting the last spans: %w", err)
	}
	return nil
}
