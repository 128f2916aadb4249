package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/introspection"

	"github.com/nqueens/nqueens/server"
)

// FuzzDocument sends documents through the whole path a query takes
// before and while it runs: the document limits, parsing, validation,
// the complexity limit and execution. Whatever the document, the server
// answers a GraphQL response (data, or errors that each carry a code),
// never a 5xx, and does not panic.
func FuzzDocument(f *testing.F) {
	for _, seed := range []string{
		"{ count(n: 8) { total unique } }",
		"query Q($n: Int!) { solutions(n: $n, first: 3) { edges { cursor node { placement rows } } pageInfo { endCursor } } }",
		"{ a: board(n: 5) { n state } b: board(n: 6) { ...B } } fragment B on Board { total classes { orbit8 } }",
		"{ node(id: \"x\") { id ... on Solution { placement } } }",
		"{ validate(placement: [1, 3, 0, 2]) { valid conflicts { kind } } }",
		fragmentDoubling(12),
		documentShapes["fragment chain"](20),
		documentShapes["same field"](40),
		"mutation { precompute(n: 9) { n } }",
		"subscription { boardProgress(n: 4) { n } }",
		"{ __type(name: \"Board\") { fields { name type { ofType { ofType { name } } } } } }",
		introspection.Query,
		"{",
		"fragment F on Board { ...F } { board(n: 1) { ...F } }",
	} {
		f.Add(seed)
	}
	cfg := server.DefaultConfig()
	cfg.RequestTimeout, cfg.Graph.SolverBudget = 200*time.Millisecond, 50*time.Millisecond
	srv, err := server.New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		body, err := json.Marshal(map[string]string{"query": doc})
		if err != nil {
			return
		}
		req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, doc, rec.Body)
		}
		var resp struct {
			Data   json.RawMessage `json:"data"`
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatalf("the answer to %q is not JSON: %v\n%s", doc, err, rec.Body)
		}
		if len(resp.Errors) == 0 && len(resp.Data) == 0 {
			t.Fatalf("the answer to %q has neither data nor errors: %s", doc, rec.Body)
		}
		for _, e := range resp.Errors {
			if code, _ := e.Extensions["code"].(string); code == "" || code == "INTERNAL" {
				t.Fatalf("an error of %q has code %q: %s", doc, code, e.Message)
			}
		}
	})
}
