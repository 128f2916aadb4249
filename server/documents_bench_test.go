package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/server"
)

// documentShapes are documents whose validation grows faster than their
// size in gqlparser, k copies of the repeated part each. The server's
// document limits (documentShape) bound k.
var documentShapes = map[string]func(k int) string{
	// one field, k times in one place: compared pair by pair
	"same field": func(k int) string { return "{ count(n: 8) {" + strings.Repeat(" total", k) + " } }" },
	// one field with arguments and children, k times
	"same field with children": func(k int) string {
		return "{" + strings.Repeat(" count(n: 8) { total }", k) + " }"
	},
	// k different fragments spread side by side: compared pair by pair
	"fragments side by side": func(k int) string {
		var b strings.Builder
		b.WriteString("{ count(n: 8) {")
		for i := range k {
			fmt.Fprintf(&b, " ...F%d", i)
		}
		b.WriteString(" } }")
		for i := range k {
			fmt.Fprintf(&b, " fragment F%d on CountResult { total }", i)
		}
		return b.String()
	},
	// a chain of k fragments, each spreading the next: each definition is
	// walked through the rest of the chain
	"fragment chain": func(k int) string {
		var b strings.Builder
		b.WriteString("{ count(n: 8) { ...F0 } }")
		for i := range k {
			fmt.Fprintf(&b, " fragment F%d on CountResult { total ...F%d }", i, i+1)
		}
		fmt.Fprintf(&b, " fragment F%d on CountResult { total }", k)
		return b.String()
	},
	// k fields that do not exist: each gets suggestions
	"unknown fields": func(k int) string { return "{ count(n: 8) {" + strings.Repeat(" totl", k) + " } }" },
	// k aliases of a cheap field
	"aliases": func(k int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range k {
			fmt.Fprintf(&b, " a%d: count(n: 8) { total }", i)
		}
		b.WriteString(" }")
		return b.String()
	},
	// k directives on one field
	"directives": func(k int) string {
		return "{ count(n: 8) { total" + strings.Repeat(" @skip(if: false)", k) + " } }"
	},
	// k variables defined
	"variables": func(k int) string {
		var b strings.Builder
		b.WriteString("query(")
		for i := range k {
			fmt.Fprintf(&b, "$v%d: Int ", i)
		}
		b.WriteString(") { count(n: 8) { total } }")
		return b.String()
	},
}

// largestAccepted finds the largest k the server's limits let through.
func largestAccepted(tb testing.TB, srv http.Handler, shape func(int) string) int {
	tb.Helper()
	refused := func(k int) bool {
		body := post(srv, shape(k))
		return strings.Contains(body, "LIMIT_EXCEEDED")
	}
	lo, hi := 1, 2
	for !refused(hi) {
		lo, hi = hi, hi*2
	}
	return lo + sort.Search(hi-lo, func(i int) bool { return refused(lo + i) }) - 1
}

func post(srv http.Handler, query string) string {
	body := fmt.Sprintf(`{"query": %q}`, query)
	req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec.Body.String()
}

// BenchmarkDocumentShapes times, for each shape, the largest document of
// that shape the default limits let through, checked afresh each time (a
// comment makes every document new to the query cache): the most CPU one
// request of that shape can cost before any resolver runs.
func BenchmarkDocumentShapes(b *testing.B) {
	srv, err := server.New(server.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, 0, len(documentShapes))
	for name := range documentShapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		shape := documentShapes[name]
		k := largestAccepted(b, srv, shape)
		doc := shape(k)
		b.Run(fmt.Sprintf("%s/k=%d/bytes=%d", name, k, len(doc)), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				post(srv, fmt.Sprintf("# %d\n%s", i, doc))
			}
		})
	}
}
