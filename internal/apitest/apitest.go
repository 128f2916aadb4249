// Package apitest starts the real HTTP server on a loopback port for
// tests and speaks GraphQL to it over real HTTP requests: no part of our
// code is replaced. Setup returns a bundle (river style) that each test
// uses on its own, so tests run in parallel.
package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/server"
)

// Bundle is one running server and what a test needs to talk to it.
type Bundle struct {
	// URL is the GraphQL endpoint, http://127.0.0.1:port/graphql.
	URL string
	// Base is the server's root URL.
	Base string
	// Server is the handler under test.
	Server *server.Server
	// Logs holds what the server logged.
	Logs *SyncBuffer
	// HTTP is the client, with no timeout beyond the test's.
	HTTP *http.Client
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Setup starts a server with server.DefaultConfig, logging to Bundle.Logs,
// as opts change it, and stops it when the test ends.
func Setup(t testing.TB, opts ...func(*server.Config)) *Bundle {
	t.Helper()
	logs := &SyncBuffer{}
	cfg := server.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The server's own http.Server, timeouts and all, on a loopback port.
	ts := httptest.NewUnstartedServer(srv)
	ts.Config = srv.HTTPServer()
	ts.Listener = srv.Listener(ts.Listener)
	ts.Start()
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return &Bundle{URL: ts.URL + "/graphql", Base: ts.URL, Server: srv, Logs: logs, HTTP: ts.Client()}
}

// Response is a GraphQL answer with its HTTP status and headers.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Data   json.RawMessage `json:"data"`
	Errors []Error         `json:"errors"`
}

// Error is one GraphQL error.
type Error struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Code is the extensions.code of the first error, "" without errors.
func (r *Response) Code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// Reason is the extensions.reason of the first error.
func (r *Response) Reason() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["reason"].(string)
	return c
}

// Message is the message of the first error.
func (r *Response) Message() string {
	if len(r.Errors) == 0 {
		return ""
	}
	return r.Errors[0].Message
}

// Request is a GraphQL request body.
type Request struct {
	Query         string         `json:"query,omitempty"`
	OperationName string         `json:"operationName,omitempty"`
	Variables     map[string]any `json:"variables,omitempty"`
	Extensions    map[string]any `json:"extensions,omitempty"`
}

// Accept is the Accept header Post and Get send, as GraphQL over HTTP
// asks of a client: answers in application/graphql-response+json, whose
// status codes say how a request went (under application/json a request
// that does not validate is 200). A header given to them overrides it.
const Accept = "application/graphql-response+json"

// Post sends req with POST and returns the answer, whatever its status.
func (b *Bundle) Post(t testing.TB, req Request, header ...string) *Response {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b.Raw(t, http.MethodPost, b.URL, bytes.NewReader(body), append([]string{"Content-Type", "application/json", "Accept", Accept}, header...)...)
}

// Get sends req as a GET query string.
func (b *Bundle) Get(t testing.TB, req Request, header ...string) *Response {
	t.Helper()
	v := url.Values{}
	if req.Query != "" {
		v.Set("query", req.Query)
	}
	if req.OperationName != "" {
		v.Set("operationName", req.OperationName)
	}
	for k, m := range map[string]map[string]any{"variables": req.Variables, "extensions": req.Extensions} {
		if m != nil {
			j, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			v.Set(k, string(j))
		}
	}
	return b.Raw(t, http.MethodGet, b.URL+"?"+v.Encode(), nil, append([]string{"Accept", Accept}, header...)...)
}

// Raw sends any request to url, with header as name, value pairs, and
// decodes a JSON answer when there is one.
func (b *Bundle) Raw(t testing.TB, method, url string, body io.Reader, header ...string) *Response {
	t.Helper()
	hreq, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		hreq.Header.Set(header[i], header[i+1])
	}
	resp, err := b.HTTP.Do(hreq)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if strings.Contains(resp.Header.Get("Content-Type"), "json") && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %v\n%s", method, url, err, raw)
		}
	}
	return out
}

// Query posts query with vars, fails the test on any error, and decodes
// data into out.
func (b *Bundle) Query(t testing.TB, query string, vars map[string]any, out any) {
	t.Helper()
	r := b.Post(t, Request{Query: query, Variables: vars})
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("query failed: status %d: %s\nquery: %s\nvariables: %v", r.Status, r.Raw, query, vars)
	}
	if out != nil {
		if err := json.Unmarshal(r.Data, out); err != nil {
			t.Fatalf("decoding %s: %v", r.Data, err)
		}
	}
}

// ParseMetrics reads Prometheus' text format (a /metrics answer) into its
// series, by name and labels as written: `name{label="v"}` → value.
func ParseMetrics(t testing.TB, body []byte) map[string]float64 {
	t.Helper()
	series := map[string]float64{}
	for line := range strings.SplitSeq(string(body), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if line == "" || line[0] == '#' || i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("/metrics line %q: %v", line, err)
		}
		series[line[:i]] = v
	}
	return series
}
