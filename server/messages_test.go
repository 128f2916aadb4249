package server_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
)

// What errors reveal and how they read: bad requests of every kind, sent
// over real HTTP, each answered with errors that carry extensions.code, say
// what is allowed, and neither quote the request back nor name Go's types.

// goWords are Go's words that encoding/json, strconv, reflect and gqlgen
// put in their errors; no answer may show them.
var goWords = []string{"Go struct", "Go value", "RawParams", "graphql.", "int64", "float64", "interface {}",
	"map[", "[]int", "unmarshal", "strconv", "reflect", "slice", "bool as", "%!"}

// badRequest is one bad request and a part of the answer's message that
// says what is allowed.
type badRequest struct {
	name   string
	method string
	query  string   // the URL's query string (GET)
	body   string   // the body (POST, PUT)
	header []string // name, value pairs; POST adds Content-Type: application/json
	status int
	code   string
	says   string
}

func postBody(name, body string, status int, code, says string) badRequest {
	return badRequest{name: name, method: http.MethodPost, body: body, status: status, code: code, says: says}
}

func getQuery(name string, params url.Values, status int, code, says string) badRequest {
	return badRequest{name: name, method: http.MethodGet, query: params.Encode(), status: status, code: code, says: says}
}

const countQuery = `query Count($n: Int!) { count(n: $n) { total } }`

func TestBadRequestMessages(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	const bad, validation, parse = "BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED"
	long := `{"query": "{ count(n: 4) { total } }", "variables": {"pad": "` + strings.Repeat("x", 200) + `"}`
	withVars := func(vars string) string { return `{"query": "` + countQuery + `", "variables": ` + vars + `}` }
	shortCursor := base64.RawURLEncoding.EncodeToString([]byte{1, 0, 8, 0})
	tests := []badRequest{
		// The body is not a GraphQL-over-HTTP request.
		postBody("not JSON", `query { count(n: 4) { total } }`, 400, bad, `send one JSON object, {"query"`),
		postBody("JSON cut short", long[:len(long)-10], 400, bad, `ends in the middle of its JSON`),
		postBody("JSON then more", `{"query": "{ count(n: 4) { total } }"} {"query": "{ board(n: 4) { n } }"}`, 400, bad, "send only one JSON object"),
		postBody("empty body", ``, 400, bad, `is empty; send one JSON object`),
		postBody("a list (batch)", `[{"query": "{ count(n: 4) { total } }"}, {"query": "{ count(n: 5) { total } }"}]`, 400, bad, "batches are not supported"),
		postBody("a string", `"{ count(n: 4) { total } }"`, 400, bad, "must be one JSON object"),
		postBody("query a number", `{"query": 12345678901234567890}`, 400, bad, `"query" must be a string, the GraphQL document, not a number`),
		postBody("query an object", `{"query": {"count": 4}}`, 400, bad, `"query" must be a string`),
		postBody("operationName a list", `{"query": "{ count(n: 4) { total } }", "operationName": ["A", "B"]}`, 400, bad, `"operationName" must be a string`),
		postBody("variables a string", withVars(`"{\"n\": 4}"`), 400, bad, `"variables" must be an object of variable values`),
		postBody("variables a list", withVars(`[4]`), 400, bad, `"variables" must be an object`),
		postBody("extensions true", `{"query": "{ count(n: 4) { total } }", "extensions": true}`, 400, bad, `"extensions" must be an object, or null, not true or false`),
		postBody("no query", `{"variables": {"n": 4}}`, 400, bad, `send the GraphQL document as the string "query"`),
		postBody("query misspelt", `{"qeury": "{ count(n: 4) { total } }"}`, 400, bad, `send the GraphQL document as the string "query"`),
		postBody("blank query", `{"query": "  \n "}`, 400, bad, `the request has no query`),
		postBody("persistedQuery not an object", `{"query": "{ count(n: 4) { total } }", "extensions": {"persistedQuery": "abc"}}`, 400, bad, `{"version": 1, "sha256Hash": "…"}`),
		postBody("persistedQuery version 2", `{"extensions": {"persistedQuery": {"version": 2, "sha256Hash": "`+strings.Repeat("0", 64)+`"}}}`, 400, bad, "version must be 1"),
		postBody("persistedQuery hash not hex", `{"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "xyz"}}}`, 400, bad, "64 lower-case hexadecimal digits"),
		postBody("persistedQuery hash of another query", `{"query": "{ count(n: 4) { total } }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "`+strings.Repeat("0", 64)+`"}}}`, 400, bad, "send the query's own hash"),

		// The document.
		postBody("parse error", `{"query": "{ count(n: 4 { total } }"}`, 400, parse, "Expected"),
		postBody("unknown field", `{"query": "{ count(n: 4) { totl } }"}`, 400, validation, `Did you mean "total"?`),
		postBody("unknown argument", `{"query": "{ count(n: 4, m: 8) { total } }"}`, 400, validation, `Did you mean "n"?`),
		postBody("no operation", `{"query": "fragment F on Query { count(n: 4) { total } }"}`, 400, validation, "add one, e.g. { count(n: 8) { total } }"),
		postBody("operationName of none", `{"query": "query A { count(n: 4) { total } } query B { count(n: 5) { total } }", "operationName": "C"}`, 400, validation, `operationName "C" is not an operation of the document; its operations are "A", "B"`),
		postBody("operationName missing", `{"query": "query A { count(n: 4) { total } } query B { count(n: 5) { total } }"}`, 400, validation, `say which one to run in operationName: its operations are "A", "B"`),
		postBody("operationName of an anonymous one", `{"query": "{ count(n: 4) { total } }", "operationName": "Count"}`, 400, validation, "leave operationName out to run it"),
		postBody("too deep", `{"query": "{ solutionAt(n: 8, rank: 1) { `+strings.Repeat("canonical { ", 12)+"n"+strings.Repeat(" }", 12)+` } }"}`, 400, bad, "at most 10 levels are allowed"),
		postBody("too complex", `{"query": "{ solutions(n: 8, first: 1000) { edges { node { symmetries { solution { symmetries { placement } } } } } } }"}`, 400, bad, "ask for fewer items"),

		// Variables.
		postBody("Int variable 1e10", withVars(`{"n": 1e10}`), 400, validation, "variable $n: 10000000000 is outside Int's range; an Int is a whole number from -2147483648 to 2147483647"),
		postBody("Int variable past 64 bits", withVars(`{"n": 123456789012345678901234567890}`), 400, validation, "outside Int's range; an Int is a whole number from -2147483648 to 2147483647"),
		postBody("Int variable past 32 bits", withVars(`{"n": 2147483648}`), 400, validation, "variable $n: 2147483648 is outside Int's range"),
		postBody("Int variable a fraction", withVars(`{"n": 4.5}`), 400, validation, "variable $n: 4.5 is not allowed; an Int is a whole number"),
		postBody("Int variable true", withVars(`{"n": true}`), 400, validation, "variable $n: true is not allowed; an Int is a whole number"),
		postBody("Int variable a list", withVars(`{"n": [4]}`), 400, validation, "variable $n: a list is not allowed; an Int"),
		postBody("Int variable an object", withVars(`{"n": {"value": 4}}`), 400, validation, "variable $n: an object is not allowed; an Int"),
		postBody("Int variable a word", withVars(`{"n": "eight"}`), 400, validation, `variable $n: "eight" is not allowed; an Int`),
		postBody("variable missing", withVars(`{}`), 400, validation, `variable $n (Int!) has no value; send one in "variables"`),
		postBody("variable null", withVars(`{"n": null}`), 400, validation, "variable $n (Int!) cannot be null; an Int is a whole number"),
		postBody("list variable item", `{"query": "query V($p: [Int!]!) { validate(placement: $p) { valid } }", "variables": {"p": [1, "x", 3]}}`, 400, validation, `variable $p[1]: "x" is not allowed; an Int`),
		postBody("list variable null item", `{"query": "query V($p: [Int!]!) { validate(placement: $p) { valid } }", "variables": {"p": [1, null]}}`, 400, validation, "variable $p[1] (Int!) cannot be null"),
		postBody("enum variable", `{"query": "query B($s: BoardState) { boards(state: $s) { n } }", "variables": {"s": "DANCING"}}`, 400, validation, `variable $s: "DANCING" is not allowed; a BoardState is one of the strings UNKNOWN, PENDING, RUNNING, DONE, FAILED`),
		postBody("BigInt variable true", `{"query": "query R($r: BigInt!) { solutionAt(n: 8, rank: $r) { n } }", "variables": {"r": true}}`, 200, bad, "true is not allowed: a BigInt is a whole number from 0 to 18446744073709551615"),
		postBody("BigInt variable a list", `{"query": "query R($r: BigInt!) { solutionAt(n: 8, rank: $r) { n } }", "variables": {"r": [1]}}`, 200, bad, "a list is not allowed: a BigInt"),
		postBody("Int literal past 32 bits", `{"query": "{ count(n: 99999999999) { total } }"}`, 200, bad, "99999999999 is outside Int's range; an Int is a whole number from -2147483648 to 2147483647"),

		// Arguments the resolvers check.
		postBody("n zero", withVars(`{"n": 0}`), 200, bad, "n must be from 1 to 32"),
		postBody("n 1e9", withVars(`{"n": 1e9}`), 200, bad, "n must be from 1 to 32 (the largest board the search handles), got 1000000000"),
		postBody("page too large", `{"query": "{ solutions(n: 8, first: 1001) { totalCount } }"}`, 200, bad, "first must be from 0 to 1000"),
		postBody("first and last", `{"query": "{ solutions(n: 8, first: 1, last: 1) { totalCount } }"}`, 200, bad, "not both"),
		postBody("cursor garbage", `{"query": "{ solutions(n: 8, after: \"garbage!\") { totalCount } }"}`, 200, bad, "cursors are the opaque strings read from edges.cursor"),
		postBody("cursor of one row", `{"query": "{ solutions(n: 8, after: \"`+shortCursor+`\") { totalCount } }"}`, 200, bad, "is not a cursor of N=8 (it holds 1 row)"),
		postBody("rank past the end", `{"query": "{ solutionAt(n: 1, rank: 2) { n } }"}`, 200, "NOT_FOUND", "N=1 has 1 solution; rank is from 1 to 1, got 2"),
		postBody("rank of no solution", `{"query": "{ solutionAt(n: 2, rank: 1) { n } }"}`, 200, "NOT_FOUND", "N=2 has no solution (N=2 and N=3 are the only boards without one)"),
		postBody("placement of the wrong length", `{"query": "{ validate(placement: [0, 2], n: 1) { valid } }"}`, 200, bad, "a placement for N=1 needs 1 column, one per row; got 2"),
		postBody("node id garbage", `{"query": "{ node(id: \"???\") { id } }"}`, 200, bad, "ids are the opaque strings read from"),

		// GET.
		getQuery("GET no query", url.Values{"operationName": {"Count"}}, 400, bad, "send the GraphQL document in the query parameter"),
		getQuery("GET variables not JSON", url.Values{"query": {countQuery}, "variables": {"{n: 4}"}}, 400, bad, `the parameter variables is not valid JSON (the first mistake is at byte 2); send a JSON object of variable values, e.g. {"n": 8}`),
		getQuery("GET variables a list", url.Values{"query": {countQuery}, "variables": {"[4]"}}, 400, bad, "the parameter variables must be a JSON object of variable values"),
		getQuery("GET extensions a number", url.Values{"query": {countQuery}, "extensions": {"5"}}, 400, bad, "the parameter extensions must be a JSON object, not a number"),
		getQuery("GET query twice", url.Values{"query": {"{ count(n: 4) { total } }", "{ count(n: 5) { total } }"}}, 400, bad, "the parameter query is given 2 times; give it once"),
		getQuery("GET Int variable 1e10", url.Values{"query": {countQuery}, "variables": {`{"n": 1e10}`}}, 400, validation, "variable $n: 10000000000 is outside Int's range"),
		{name: "GET bad URL encoding", method: http.MethodGet, query: "query=%zz", status: 400, code: bad, says: "escape each parameter's value"},
		getQuery("GET a mutation", url.Values{"query": {"mutation { precompute(n: 4) { n } }"}}, 405, bad, "send mutations with POST"),

		// Methods and media types.
		{name: "PUT", method: http.MethodPut, body: `{"query": "{ count(n: 4) { total } }"}`, status: 405, code: bad, says: "use POST (queries and mutations) or GET (queries)"},
		{name: "PATCH", method: http.MethodPatch, body: `{"query": "{ count(n: 4) { total } }"}`, status: 405, code: bad, says: "use POST"},
		{name: "text/plain", method: http.MethodPost, body: `{"query": "{ count(n: 4) { total } }"}`, header: []string{"Content-Type", "text/plain"},
			status: 415, code: bad, says: `Content-Type "text/plain" is not supported; send a JSON body with Content-Type: application/json`},
		{name: "form", method: http.MethodPost, body: `query=` + url.QueryEscape(`{ count(n: 4) { total } }`), header: []string{"Content-Type", "application/x-www-form-urlencoded"},
			status: 415, code: bad, says: "send a JSON body with Content-Type: application/json"},
		{name: "long Content-Type", method: http.MethodPost, body: `{"query": "{ count(n: 4) { total } }"}`, header: []string{"Content-Type", "text/" + strings.Repeat("x", 300)},
			status: 415, code: bad, says: "is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			header := tt.header
			if header == nil && tt.method != http.MethodGet {
				header = []string{"Content-Type", "application/json"}
			}
			header = append(header, "Accept", apitest.Accept)
			u := b.URL
			if tt.query != "" {
				u += "?" + tt.query
			}
			r := b.Raw(t, tt.method, u, strings.NewReader(tt.body), header...)
			if r.Status != tt.status || r.Code() != tt.code || !strings.Contains(r.Message(), tt.says) {
				t.Errorf("status %d, code %q; want %d, %q, a message with %q\n%s", r.Status, r.Code(), tt.status, tt.code, tt.says, r.Raw)
			}
			checkErrorsRead(t, r, tt.body, tt.query)
		})
	}
}

// checkErrorsRead checks every error of an answer: it has a code, it does
// not quote the request (body or query string) back, and it has neither
// Go's words nor doubled spaces.
func checkErrorsRead(t *testing.T, r *apitest.Response, sent ...string) {
	t.Helper()
	if len(r.Errors) == 0 {
		t.Fatalf("no errors: %s", r.Raw)
	}
	for _, e := range r.Errors {
		if c, _ := e.Extensions["code"].(string); c == "" {
			t.Errorf("error without extensions.code: %s", r.Raw)
		}
		for _, s := range sent {
			if len(s) > 24 && strings.Contains(e.Message, s) {
				t.Errorf("the message quotes the request back: %q", e.Message)
			}
		}
		for _, w := range goWords {
			if strings.Contains(e.Message, w) {
				t.Errorf("the message has Go's %q: %q", w, e.Message)
			}
		}
		if strings.Contains(e.Message, "  ") || e.Message != strings.TrimSpace(e.Message) {
			t.Errorf("the message has doubled or stray spaces: %q", e.Message)
		}
	}
}

// TestMessagesSpecific: the messages that used to read badly, and the one
// that was wrong for a single queen.
func TestMessagesSpecific(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	var v struct {
		Validate struct {
			Valid   bool
			Message string
		}
	}
	b.Query(t, `{ validate(placement: [0]) { valid message } }`, nil, &v)
	if !v.Validate.Valid || v.Validate.Message != "valid: a single queen has no other to attack" {
		t.Errorf("validate([0]): %+v", v.Validate)
	}
	b.Query(t, `{ validate(placement: [1, 3, 0, 2]) { valid message } }`, nil, &v)
	if !v.Validate.Valid || v.Validate.Message != "valid: no two of the 4 queens attack each other" {
		t.Errorf("validate([1, 3, 0, 2]): %+v", v.Validate)
	}
	// operationName empty with two operations: gqlgen said "operation  not found".
	r := b.Post(t, apitest.Request{Query: `query A { count(n: 4) { total } } query B { count(n: 5) { total } }`})
	if strings.Contains(r.Message(), "operation  not found") || !strings.Contains(r.Message(), `"A", "B"`) {
		t.Errorf("two operations, no operationName: %s", r.Raw)
	}
	// An Int variable written 1e9 is the Int 1000000000, as JSON.parse
	// reads it; 4.0 is 4.
	for vars, want := range map[string]string{`{"n": 4.0}`: `{"data":{"count":{"total":"2"}}}`, `{"n": 0.4e1}`: `{"data":{"count":{"total":"2"}}}`} {
		body := `{"query": "` + countQuery + `", "variables": ` + vars + `}`
		if r := b.Raw(t, http.MethodPost, b.URL, strings.NewReader(body), "Content-Type", "application/json"); string(r.Raw) != want {
			t.Errorf("variables %s: %s", vars, r.Raw)
		}
	}
	body := `{"query": "` + countQuery + `", "variables": {"n": 1e9}}`
	if r := b.Raw(t, http.MethodPost, b.URL, strings.NewReader(body), "Content-Type", "application/json"); !strings.Contains(r.Message(), "got 1000000000") {
		t.Errorf("n = 1e9: %s", r.Raw)
	}
}
