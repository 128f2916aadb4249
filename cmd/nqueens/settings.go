package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/memlimit"
)

// envFlag is a flag with its environment twin: the variable sets the
// flag's default, the flag given on the command line wins. field names
// the field of the configuration the flag sets (as a *configcheck.Error
// names it), "" for none.
type envFlag struct{ name, env, field string }

// Settings every long-running command shares: the database and the logs.
const (
	envLogLevel  = "NQUEENS_LOG_LEVEL"
	envLogFormat = "NQUEENS_LOG_FORMAT"
)

var commonEnv = []envFlag{
	{"database-url", envDatabaseURL, ""},
	{"sqlite-path", envSQLitePath, ""},
	{"log-level", envLogLevel, ""},
	{"log-format", envLogFormat, ""},
}

// envTwins are all the flags with an environment twin. A flag has the
// same twin in every command that defines it.
func envTwins() []envFlag {
	return slices.Concat(commonEnv, serveEnv, workerEnv, healthcheckEnv, precomputeEnv)
}

// setFromEnv sets the flags of fs that have a twin in the environment
// (lookupEnv), before the command line is parsed. A bad value is a usage
// error that names the variable.
func setFromEnv(fs *flag.FlagSet, lookupEnv func(string) (string, bool)) error {
	for _, f := range envTwins() {
		if fs.Lookup(f.name) == nil {
			continue
		}
		if v, ok := lookupEnv(f.env); ok {
			if err := fs.Set(f.name, v); err != nil {
				return usagef("%s=%q: %v", f.env, v, err)
			}
		}
	}
	return nil
}

// isSet reports whether the flag name was given, on the command line or
// by its environment twin.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// setting names a flag and its environment twin, for messages about bad
// values: "--max-page-size (NQUEENS_MAX_PAGE_SIZE)".
func setting(name string) string {
	for _, f := range envTwins() {
		if f.name == name {
			return "--" + name + " (" + f.env + ")"
		}
	}
	return "--" + name
}

// settingError returns a configuration's refusal of one of its fields (a
// *configcheck.Error) as a usage error that names the flag of flags that
// sets the field, and any other error as it is.
func settingError(err error, flags []envFlag) error {
	var e *configcheck.Error
	if !errors.As(err, &e) {
		return err
	}
	for _, f := range flags {
		if f.field == e.Field {
			return usagef("%s %s", setting(f.name), e.Problem)
		}
	}
	return usagef("%v", err)
}

// logSettings are the --log-level and --log-format flags.
type logSettings struct {
	level  logLevel
	format logFormat
}

// addLogFlags defines --log-level (default level) and --log-format on fs.
func addLogFlags(fs *flag.FlagSet, level slog.Level) *logSettings {
	s := &logSettings{level: logLevel(level), format: "text"}
	fs.Var(&s.level, "log-level", "the least `LEVEL` logged: debug, info, warn or error ($"+envLogLevel+")")
	fs.Var(&s.format, "log-format", "`FORMAT` of the log lines on stderr: text (key=value) or json ($"+envLogFormat+")")
	return s
}

// logger returns a logger writing to w as the settings say.
func (s *logSettings) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.Level(s.level)}
	if s.format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
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

// byteSize is a flag.Value taking a byte count as GOMEMLIMIT writes one:
// whole bytes or with a suffix KiB, MiB, GiB or TiB (536870912, 512MiB).
// 0 until set.
type byteSize int64

func (b *byteSize) Set(s string) error {
	n, err := memlimit.ParseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return "0"
	}
	return memlimit.Format(int64(*b))
}
