package main

import (
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/nqueens/nqueens/internal/tracing"
)

// logOptions are the settings of the logs on stderr, which every
// long-running command shares.
type logOptions struct {
	level  logLevel
	format logFormat
}

// newLogOptions are the defaults: text lines from level up.
func newLogOptions(level slog.Level) logOptions {
	return logOptions{level: logLevel(level), format: "text"}
}

func (o *logOptions) settings() []setting {
	return []setting{
		{flag: "log-level", into: &o.level, help: "the least `LEVEL` logged: debug, info, warn or error"},
		{flag: "log-format", into: &o.format, help: "`FORMAT` of the log lines on stderr: text (key=value) or json"},
	}
}

// logger returns a logger writing to w as the settings say.
func (o *logOptions) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.Level(o.level)}
	// Records made within a traced request or job carry its trace_id.
	if o.format == "json" {
		return slog.New(tracing.LogHandler(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(tracing.LogHandler(slog.NewTextHandler(w, opts)))
}

// logLevel is a flag.Value taking the four named levels only (slog's own
// parser also takes offsets such as info+2, which nobody means here).
type logLevel slog.Level

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

func (l *logLevel) Set(s string) error {
	level, ok := logLevels[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return errors.New("must be one of debug, info, warn, error")
	}
	*l = logLevel(level)
	return nil
}

func (l *logLevel) String() string { return strings.ToLower(slog.Level(*l).String()) }

// logFormat is a flag.Value taking text or json.
type logFormat string

func (f *logFormat) Set(s string) error {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "text", "json":
		*f = logFormat(s)
		return nil
	}
	return errors.New("must be text or json")
}

func (f *logFormat) String() string { return string(*f) }
