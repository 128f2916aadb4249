package server_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/server"
)

// FuzzRequestDecoder sends the real handler, in-process, POST bodies and
// GET query strings (input) with one of a few Accept headers: whatever
// comes in, it answers with a GraphQL response, never a 5xx: errors that
// each carry extensions.code and no "data" on a 4xx, or data. The seed
// corpus is testdata/fuzz/FuzzRequestDecoder.
//
//	go test -fuzz FuzzRequestDecoder -fuzztime 30s ./server
func FuzzRequestDecoder(f *testing.F) {
	cfg := server.DefaultConfig()
	// Small budgets: a fuzzed query may well ask for a large count.
	cfg.Graph.CountMaxN, cfg.Graph.RankWalkMaxN, cfg.Graph.CountTimeout = 8, 8, time.Second
	cfg.RequestTimeout = time.Second
	cfg.Logger = slog.New(slog.DiscardHandler)
	srv, err := server.New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	accepts := []string{"", "application/graphql-response+json", "application/json", "*/*", "text/html;q=0.5, application/*;q=0.1"}

	f.Fuzz(func(t *testing.T, get bool, accept uint8, input string) {
		var req *http.Request
		if get {
			req = httptest.NewRequest(http.MethodGet, "/graphql", nil)
			req.URL.RawQuery = input
		} else {
			req = httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(input))
			req.Header.Set("Content-Type", "application/json")
		}
		if a := accepts[int(accept)%len(accepts)]; a != "" {
			req.Header.Set("Accept", a)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 || !strings.Contains(rec.Header().Get("Content-Type"), "json") {
			t.Fatalf("%d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		var answer map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
		if err := dec.Decode(&answer); err != nil || dec.More() {
			t.Fatalf("%d: the answer is not one JSON object (%v): %s", rec.Code, err, rec.Body)
		}
		for k := range answer {
			if k != "data" && k != "errors" && k != "extensions" {
				t.Fatalf("%d: the answer has %q: %s", rec.Code, k, rec.Body)
			}
		}
		data, hasData := answer["data"]
		var errs []struct {
			Message    string
			Extensions struct{ Code string }
		}
		if raw, ok := answer["errors"]; ok {
			if err := json.Unmarshal(raw, &errs); err != nil || len(errs) == 0 {
				t.Fatalf("%d: errors is not a list of errors (%v): %s", rec.Code, err, rec.Body)
			}
		}
		for _, e := range errs {
			if e.Message == "" || e.Extensions.Code == "" {
				t.Fatalf("%d: an error without a message or extensions.code: %s", rec.Code, rec.Body)
			}
		}
		switch {
		case len(errs) == 0 && (!hasData || string(data) == "null"):
			t.Fatalf("%d: neither data nor errors: %s", rec.Code, rec.Body)
		case rec.Code >= 400 && hasData:
			t.Fatalf("%d: a request error with data: %s", rec.Code, rec.Body)
		}
	})
}
