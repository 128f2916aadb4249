package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// otlpReceiver is an OTLP/HTTP trace receiver: it decodes what exporters
// post to /v1/traces and keeps the spans' names by trace id, with the
// service name of their resource.
type otlpReceiver struct {
	mu       sync.Mutex
	spans    map[string][]string // trace id (hex) → span names
	services map[string]bool
}

func newOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	rc := &otlpReceiver{spans: map[string][]string{}, services: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("OTLP receiver: %s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			http.Error(w, "not OTLP/HTTP traces", http.StatusBadRequest)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &req)
		}
		if err != nil {
			t.Errorf("OTLP receiver: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.Key == "service.name" {
					rc.services[kv.GetValue().GetStringValue()] = true
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					id := hexOf(s.TraceId)
					rc.spans[id] = append(rc.spans[id], s.Name)
				}
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestServeExportsSpans runs the real binary with OTEL_EXPORTER_OTLP_ENDPOINT
// naming an OTLP/HTTP receiver of the test, over Postgres with N=8
// stored: a page request with a traceparent has its spans (HTTP,
// operation, root field, SQL) arrive at the receiver in the incoming
// trace, under OTEL_SERVICE_NAME, and its JSON log line carries the
// trace id.
func TestServeExportsSpans(t *testing.T) {
	t.Parallel()
	rc, endpoint := newOTLPReceiver(t)
	u, _ := pgtest.Schema(t)
	st := pgtest.Open(t, u)
	storetest.Load(context.Background(), t, st, 8, solver.DefaultChunkDepth(8))
	st.Close()
	s := spawn(t, []string{"DATABASE_URL=" + u, "NQUEENS_PRECOMPUTE=none", "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint,
		"OTEL_SERVICE_NAME=nqueens-under-test", "OTEL_BSP_SCHEDULE_DELAY=100"}, serveArgs([]string{"--log-format", "json"})...)
	s.waitServing(t)
	s.waitFor(t, time.Minute, `"database open"`)

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	resp, b := s.request(t, http.MethodPost, "/graphql", `{"query":"query PageOfSolutions { solutions(n: 8, first: 3) { edges { cursor } } }"}`,
		"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"cursor"`) {
		t.Fatalf("page: %d %s", resp.StatusCode, b)
	}
	eventually.True(t, time.Minute, func() string {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		got := strings.Join(rc.spans[traceID], ", ")
		for _, want := range []string{"POST /graphql", "query PageOfSolutions", "Query.solutions", "SELECT"} {
			if !strings.Contains(got, want) {
				return "spans of the trace so far: " + got + "; want " + want
			}
		}
		if !rc.services["nqueens-under-test"] {
			return "no span of service nqueens-under-test"
		}
		return ""
	})

	s.stop(t)
	var logged bool
	for line := range strings.SplitSeq(s.stderr.String(), "\n") {
		var rec struct {
			Msg       string `json:"msg"`
			Operation string `json:"operation"`
			TraceID   string `json:"trace_id"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "request" && rec.Operation == "PageOfSolutions" {
			logged = rec.TraceID == traceID
		}
	}
	if !logged {
		t.Errorf("no request log line with trace_id %s:\n%s", traceID, s.stderr.String())
	}
}

// TestServeBadTracingSettings: an OTEL_* variable serve cannot follow
// stops it before it serves, with a message that says what is allowed.
func TestServeBadTracingSettings(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318": "OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL",
		"OTEL_EXPORTER_OTLP_PROTOCOL=grpc":           "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; spans go over OTLP/HTTP: http/protobuf",
		"OTEL_TRACES_EXPORTER=zipkin":                "OTEL_TRACES_EXPORTER=zipkin is not supported; use otlp",
	} {
		r := nqueensEnv(t, []string{env, "NQUEENS_SQLITE_PATH=" + t.TempDir() + "/nqueens.db"}, serveArgs(nil)...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", env, r.code, r.stderr, want)
		}
	}
}

// TestWorkerExportsSpans runs worker with OTEL_EXPORTER_OTLP_ENDPOINT
// naming the test's receiver: the jobs of a board asked for by precompute
// arrive there as River job spans, and the worker's statements with them.
func TestWorkerExportsSpans(t *testing.T) {
	t.Parallel()
	rc, endpoint := newOTLPReceiver(t)
	u, _ := pgtest.Schema(t)
	w := background(t, []string{"DATABASE_URL=" + u, "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint}, "worker", "--workers", "1")
	w.waitFor(t, time.Minute, "worker started")
	if r := nqueensEnv(t, []string{"DATABASE_URL=" + u}, "precompute", "6"); r.code != 0 {
		t.Fatalf("precompute 6: exit %d\n%s", r.code, r.stderr)
	}
	eventually.True(t, time.Minute, func() string {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		var all []string
		for _, names := range rc.spans {
			all = append(all, names...)
		}
		got := strings.Join(all, ", ")
		for _, want := range []string{"river.work/board", "river.work/chunk", "INSERT"} {
			if !strings.Contains(got, want) {
				return "spans so far: " + got + "; want " + want
			}
		}
		if !rc.services["nqueens"] {
			return "no span of service nqueens"
		}
		return ""
	})
	w.stop(t)
}
