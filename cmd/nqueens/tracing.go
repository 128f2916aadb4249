package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/nqueens/nqueens/internal/buildinfo"
	"github.com/nqueens/nqueens/internal/tracing"
)

// tracingUsage is what serve's and worker's help say of tracing.
const tracingUsage = "Tracing: OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 sends OpenTelemetry spans over OTLP/HTTP;\nunset, tracing is off (docs/OPERATIONS.md, \"Tracing\")."

// tracingShutdownTimeout bounds the export of the last spans on exit: a
// collector that does not answer must not hold the process.
const tracingShutdownTimeout = 5 * time.Second

// startTracing sets tracing up as the OTEL_* variables say (off when they
// name no endpoint; docs/OPERATIONS.md, "Tracing") and logs where spans
// go. stop exports the last spans; call it once the work is done.
func startTracing(ctx context.Context, c console, logger *slog.Logger) (tr *tracing.Tracing, stop func(), err error) {
	tr, err = tracing.Setup(ctx, c.lookupEnv, buildinfo.Read().Version, logger)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	if !tr.On() {
		return tr, func() {}, nil
	}
	logger.Info("tracing", "endpoint", tr.Endpoint())
	return tr, func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tracingShutdownTimeout)
		defer cancel()
		if err := tr.Shutdown(ctx); err != nil {
			logger.Warn("tracing: the last spans were not exported", "error", err)
		}
	}, nil
}
