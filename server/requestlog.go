package server

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"
)

// requestIDHeader carries a request's id, in the request (a proxy's id,
// kept when sane) and in the answer.
const requestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds an incoming request id; a longer one is replaced.
const maxRequestIDLen = 128

// requestInfo is what the request log learns about a request while it is
// served: its id, and the GraphQL operation once gqlgen has parsed it.
type requestInfo struct {
	id         string
	operation  atomic.Pointer[string] // websocket operations may run at once
	cleanQuery atomic.Bool            // a query answered without errors: answerCache may keep it
}

type requestInfoKey struct{}

// noteOperation records the GraphQL operation a request ran, for its log
// line.
func noteOperation(ctx context.Context, name string) {
	if ri, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		ri.operation.Store(&name)
	}
}

// noteCleanQuery records that the request was a query answered without
// errors.
func noteCleanQuery(ctx context.Context) {
	if ri, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		ri.cleanQuery.Store(true)
	}
}

// quietPaths are polled by probes and scrapers: their lines are logged at
// debug level so that they do not drown the others.
var quietPaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// logRequests gives each request an id (the client's X-Request-Id when it
// is sane, else a new one), echoes it in the answer, and logs one line per
// request when it ends: id, method, path, GraphQL operation, status,
// duration and bytes written. A websocket's line comes when it closes.
func logRequests(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: r.Header.Get(requestIDHeader)}
		if !saneRequestID(ri.id) {
			ri.id = rand.Text()
		}
		w.Header().Set(requestIDHeader, ri.id)
		lw := &loggingWriter{ResponseWriter: w}
		next.ServeHTTP(lw, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, ri)))

		level := slog.LevelInfo
		if quietPaths[r.URL.Path] {
			level = slog.LevelDebug
		}
		if !logger.Enabled(r.Context(), level) {
			return
		}
		attrs := []slog.Attr{
			slog.String("request_id", ri.id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
		}
		if op := ri.operation.Load(); op != nil {
			attrs = append(attrs, slog.String("operation", *op))
		}
		attrs = append(attrs,
			slog.Int("status", lw.statusCode()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.Int64("bytes", lw.bytes),
			slog.String("remote", r.RemoteAddr),
		)
		logger.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// saneRequestID reports whether an incoming request id may be kept: short,
// and printable ASCII without spaces or quotes, so that it can go into
// headers and log lines as it is.
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// loggingWriter counts what a handler writes. It unwraps to the writer it
// wraps, so that http.ResponseController and the websocket library reach
// Hijack through it.
type loggingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *loggingWriter) WriteHeader(status int) {
	// Informational answers (103) may come before the final one; 101 ends
	// the HTTP exchange of a websocket.
	if w.status == 0 && (status >= 200 || status == http.StatusSwitchingProtocols) {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *loggingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher for handlers that assert it directly.
func (w *loggingWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap is for http.ResponseController.
func (w *loggingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *loggingWriter) statusCode() int {
	if w.status == 0 {
		return http.StatusOK // nothing written: net/http answers 200
	}
	return w.status
}
