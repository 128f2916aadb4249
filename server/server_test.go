package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/server"
)

// These tests run the real handler behind httptest and speak HTTP (and
// websockets) to it.

// TestStatusCodesAndMediaTypes: GraphQL over HTTP's media types and status
// codes. A request that is not well-formed is 400 (415, 405 for the wrong
// media type or method); one that is well-formed but fails before
// execution is 400 under application/graphql-response+json and 200 under
// application/json (the legacy type, which no Accept and */* ask for).
// Answers without execution have no "data".
func TestStatusCodesAndMediaTypes(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	const gqlJSON, legacy = "application/graphql-response+json", "application/json"
	const query = `{"query":"{ count(n: 4) { total } }"}`
	ct := []string{"Content-Type", "application/json"}
	accepting := func(accept string) []string { return []string{"Content-Type", "application/json", "Accept", accept} }
	tests := []struct {
		name   string
		method string
		body   string
		header []string
		status int
		ctype  string // Content-Type without parameters; "" none
		data   bool   // the answer has a "data" entry
		allow  string
	}{
		{"no Accept", "POST", query, ct, 200, legacy, true, ""},
		{"Accept graphql-response+json", "POST", query, accepting(gqlJSON), 200, gqlJSON, true, ""},
		{"Accept application/json", "POST", query, accepting(legacy), 200, legacy, true, ""},
		{"Accept */*", "POST", query, accepting("*/*"), 200, legacy, true, ""},
		{"Accept application/*", "POST", query, accepting("application/*"), 200, legacy, true, ""},
		{"Accept as the spec recommends", "POST", query, accepting(gqlJSON + ", application/json;q=0.9"), 200, gqlJSON, true, ""},
		{"Accept prefers graphql-response+json by q", "POST", query, accepting("application/json;q=0.5, " + gqlJSON), 200, gqlJSON, true, ""},
		{"Accept prefers application/json by q", "POST", query, accepting(gqlJSON + ";q=0.5, application/json"), 200, legacy, true, ""},
		{"Accept refuses graphql-response+json", "POST", query, accepting(gqlJSON + ";q=0, */*"), 200, legacy, true, ""},
		{"Accept a browser's", "POST", query, accepting("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"), 200, legacy, true, ""},
		{"Accept nothing we have", "POST", query, accepting("text/html"), 200, legacy, true, ""},
		{"Content-Type with charset", "POST", query, []string{"Content-Type", "application/json; charset=utf-8", "Accept", gqlJSON}, 200, gqlJSON, true, ""},
		{"field error", "POST", `{"query":"{ count(n: 0) { total } }"}`, accepting(gqlJSON), 200, gqlJSON, true, ""},

		{"parse error", "POST", `{"query":"{ count(n: 4 { total } }"}`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"parse error, application/json", "POST", `{"query":"{ count(n: 4 { total } }"}`, accepting(legacy), 200, legacy, false, ""},
		{"parse error, no Accept", "POST", `{"query":"{"}`, ct, 200, legacy, false, ""},
		{"validation error", "POST", `{"query":"{ nothing }"}`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"validation error, application/json", "POST", `{"query":"{ nothing }"}`, accepting(legacy), 200, legacy, false, ""},
		{"variable error", "POST", `{"query":"query($n: Int!) { count(n: $n) { total } }","variables":{"n":true}}`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"variable error, application/json", "POST", `{"query":"query($n: Int!) { count(n: $n) { total } }","variables":{"n":true}}`, accepting(legacy), 200, legacy, false, ""},
		{"unknown operation", "POST", `{"query":"query A { count(n: 4) { total } }","operationName":"B"}`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"unknown persisted query", "POST", `{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"` + strings.Repeat("ab", 32) + `"}}}`, accepting(gqlJSON), 404, gqlJSON, false, ""},

		{"no query", "POST", `{}`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"no query, application/json", "POST", `{"qeury":"{ count(n: 4) { total } }"}`, accepting(legacy), 400, legacy, false, ""},
		{"query not a string", "POST", `{"query":{}}`, accepting(legacy), 400, legacy, false, ""},
		{"variables not an object", "POST", `{"query":"{ count(n: 4) { total } }","variables":[7]}`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"not JSON", "POST", `query { count }`, accepting(gqlJSON), 400, gqlJSON, false, ""},
		{"not JSON, application/json", "POST", `{"query":`, accepting(legacy), 400, legacy, false, ""},
		{"empty body", "POST", ``, ct, 400, legacy, false, ""},
		{"wrong media type", "POST", `{ count(n: 4) { total } }`, []string{"Content-Type", "text/plain"}, 415, legacy, false, ""},
		{"no media type", "POST", query, nil, 415, legacy, false, ""},
		{"PUT", "PUT", `{}`, accepting(gqlJSON), 405, gqlJSON, false, "GET, POST, OPTIONS"},
		{"DELETE", "DELETE", ``, nil, 405, legacy, false, "GET, POST, OPTIONS"},
		{"OPTIONS", "OPTIONS", ``, nil, 204, "", false, "GET, POST, OPTIONS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := b.Raw(t, tt.method, b.URL, strings.NewReader(tt.body), tt.header...)
			got := r.Header.Get("Content-Type")
			want := tt.ctype
			if want != "" {
				want += "; charset=utf-8"
			}
			_, hasData := answerEntries(t, r)["data"]
			if r.Status != tt.status || got != want || hasData != tt.data || r.Header.Get("Allow") != tt.allow {
				t.Errorf("status %d, Content-Type %q, data %v, Allow %q; want %d, %q, %v, %q\n%s",
					r.Status, got, hasData, r.Header.Get("Allow"), tt.status, want, tt.data, tt.allow, r.Raw)
			}
			if !tt.data && tt.status != 204 && r.Code() == "" {
				t.Errorf("error without extensions.code: %s", r.Raw)
			}
		})
	}

	// A mutation over GET is refused with 405 and Allow: POST, whatever
	// the media type.
	for _, accept := range []string{gqlJSON, legacy} {
		r := b.Get(t, apitest.Request{Query: `mutation { precompute(n: 4) { n } }`}, "Accept", accept)
		if r.Status != 405 || r.Header.Get("Allow") != "POST" || r.Code() != "BAD_USER_INPUT" || !strings.Contains(r.Message(), "POST") {
			t.Errorf("mutation over GET, Accept %s: %d %v %s", accept, r.Status, r.Header, r.Raw)
		}
	}
	// GET with variables and an operation name.
	var out struct {
		Data struct{ Count struct{ Total string } }
	}
	r := b.Get(t, apitest.Request{Query: `query A($n: Int!) { count(n: $n) { total } } query B { board(n: 1) { n } }`,
		OperationName: "A", Variables: map[string]any{"n": 6}})
	if err := json.Unmarshal(r.Raw, &out); err != nil || r.Status != 200 || out.Data.Count.Total != strconv.FormatUint(oeis.MustLoad(t)[6].Total, 10) {
		t.Errorf("GET with variables: %d %s", r.Status, r.Raw)
	}
}

// answerEntries is the top-level entries of a JSON answer (none for an
// empty body).
func answerEntries(t *testing.T, r *apitest.Response) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if len(r.Raw) > 0 {
		if err := json.Unmarshal(r.Raw, &m); err != nil {
			t.Fatalf("answer is not a JSON object: %v\n%s", err, r.Raw)
		}
	}
	return m
}

func TestHealthAndPlayground(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	if r := b.Raw(t, "GET", b.Base+"/healthz", nil); r.Status != 200 || string(r.Raw) != "ok\n" {
		t.Errorf("/healthz: %d %q", r.Status, r.Raw)
	}
	r := b.Raw(t, "GET", b.Base+"/playground", nil)
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Raw), "/graphql") {
		t.Errorf("/playground: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	if r := b.Raw(t, "GET", b.Base+"/nothing-here", nil); r.Status != 404 {
		t.Errorf("/nothing-here: %d", r.Status)
	}
}

func TestGETCaching(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	page := apitest.Request{Query: `{ solutions(n: 8, first: 5) { edges { cursor node { placement rank } } totalCount } }`}

	r := b.Get(t, page)
	etag := r.Header.Get("ETag")
	if r.Status != 200 || etag == "" || !strings.HasPrefix(r.Header.Get("Cache-Control"), "public, max-age=") {
		t.Fatalf("GET page: %d ETag %q Cache-Control %q", r.Status, etag, r.Header.Get("Cache-Control"))
	}
	sum := sha256.Sum256(r.Raw)
	if etag != `"`+hex.EncodeToString(sum[:16])+`"` {
		t.Errorf("ETag %s is not the body's hash", etag)
	}
	// The same answer again, and 304 when the client has it.
	if r2 := b.Get(t, page); r2.Header.Get("ETag") != etag || string(r2.Raw) != string(r.Raw) {
		t.Errorf("the same GET answered differently")
	}
	for _, inm := range []string{etag, `"x", ` + etag, "W/" + etag, "*"} {
		r304 := b.Get(t, page, "If-None-Match", inm)
		if r304.Status != http.StatusNotModified || len(r304.Raw) != 0 || r304.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d, %d bytes", inm, r304.Status, len(r304.Raw))
		}
	}
	if r := b.Get(t, page, "If-None-Match", `"something else"`); r.Status != 200 {
		t.Errorf("If-None-Match of another answer: %d", r.Status)
	}

	// What may change is revalidated; errors are not stored.
	for q, want := range map[string]string{
		`{ board(n: 8) { state progress { fraction } } }`:     "no-cache",
		`{ count(n: 20) { total } }`:                          "no-cache",
		`{ solutions(n: 20, first: 1) { totalCount } }`:       "no-cache",
		`{ count(n: 8) { total unique } }`:                    "public, max-age=86400",
		`{ solution(placement: [1, 3, 0, 2]) { svg chess } }`: "public, max-age=86400",
		`{ solutions(n: 0) { totalCount } }`:                  "no-store",
	} {
		r := b.Get(t, apitest.Request{Query: q})
		if got := r.Header.Get("Cache-Control"); got != want {
			t.Errorf("%s: Cache-Control %q, want %q", q, got, want)
		}
	}
	// POST answers carry no ETag.
	if r := b.Post(t, page); r.Header.Get("ETag") != "" {
		t.Errorf("POST answer with an ETag")
	}
}

func TestPersistedQueries(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	q := `{ count(n: 7) { total } }`
	sum := sha256.Sum256([]byte(q))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}

	if r := b.Get(t, apitest.Request{Extensions: ext}); r.Code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("unknown hash: %s", r.Raw)
	}
	if r := b.Post(t, apitest.Request{Query: q, Extensions: ext}); r.Status != 200 || len(r.Errors) > 0 {
		t.Fatalf("registering the query: %s", r.Raw)
	}
	r := b.Get(t, apitest.Request{Extensions: ext})
	want := `"` + strconv.FormatUint(oeis.MustLoad(t)[7].Total, 10) + `"`
	if r.Status != 200 || !strings.Contains(string(r.Data), want) {
		t.Fatalf("by hash: %s", r.Raw)
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.CORSOrigins = []string{"https://viewer.example"} })
	r := b.Raw(t, "OPTIONS", b.URL, nil,
		"Origin", "https://viewer.example",
		"Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type") // as browsers send it: sorted, lower case
	if r.Status/100 != 2 || r.Header.Get("Access-Control-Allow-Origin") != "https://viewer.example" {
		t.Errorf("preflight from an allowed origin: %d %v", r.Status, r.Header)
	}
	r = b.Raw(t, "OPTIONS", b.URL, nil, "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin allowed: %v", r.Header)
	}
	r = b.Get(t, apitest.Request{Query: `{ count(n: 4) { total } }`}, "Origin", "https://viewer.example")
	if r.Header.Get("Access-Control-Allow-Origin") != "https://viewer.example" || !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "Etag") {
		t.Errorf("GET from an allowed origin: %v", r.Header)
	}
	// Without configured origins there are no CORS headers.
	plain := apitest.Setup(t)
	r = plain.Get(t, apitest.Request{Query: `{ count(n: 4) { total } }`}, "Origin", "https://viewer.example")
	if r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS header without configured origins: %v", r.Header)
	}
}

func TestAdminToken(t *testing.T) {
	t.Parallel()
	const m = `mutation { precompute(n: 8, storeSolutions: true) { n state } }`
	off := apitest.Setup(t)
	if r := off.Post(t, apitest.Request{Query: m}, "Authorization", "Bearer anything"); r.Code() != "UNAUTHENTICATED" || !strings.Contains(r.Message(), "NQUEENS_ADMIN_TOKEN") {
		t.Errorf("no token configured: %s", r.Raw)
	}
	on := apitest.Setup(t, func(c *server.Config) { c.Graph.AdminToken = "s3cret" })
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "Basic s3cret"}, {"Authorization", "s3cret"}} {
		if r := on.Post(t, apitest.Request{Query: m}, h...); r.Code() != "UNAUTHENTICATED" {
			t.Errorf("header %v: %s", h, r.Raw)
		}
	}
	// The right token passes; with no precompute engine yet, the mutation
	// says so.
	r := on.Post(t, apitest.Request{Query: m}, "Authorization", "Bearer s3cret")
	if r.Code() != "UNAVAILABLE" || !strings.Contains(r.Message(), "not configured") {
		t.Errorf("right token: %s", r.Raw)
	}
	// Argument checks come after the token check.
	r = on.Post(t, apitest.Request{Query: `mutation { precompute(n: 99) { n } }`}, "Authorization", "bearer s3cret")
	if r.Code() != "BAD_USER_INPUT" {
		t.Errorf("n out of range with the right token: %s", r.Raw)
	}
}

// introspectionQuery is the query GraphiQL sends to learn the schema.
const introspectionQuery = `query IntrospectionQuery { __schema { description queryType { name } mutationType { name } subscriptionType { name } types { ...FullType } directives { name description isRepeatable locations args(includeDeprecated: true) { ...InputValue } } } } fragment FullType on __Type { kind name description specifiedByURL fields(includeDeprecated: true) { name description args(includeDeprecated: true) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields(includeDeprecated: true) { ...InputValue } interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } } fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason } fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } } }`

// TestIntrospection: the playground's introspection passes the depth and
// complexity limits, and every type, field, argument and enum value of the
// schema has a description.
func TestIntrospection(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	type inputValue struct{ Name, Description string }
	var data struct {
		Schema struct {
			Types []struct {
				Kind, Name, Description string
				Fields                  []struct {
					Name, Description string
					Args              []inputValue
				}
				InputFields []inputValue
				EnumValues  []inputValue
			}
		} `json:"__schema"`
	}
	b.Query(t, introspectionQuery, nil, &data)
	builtin := map[string]bool{"Int": true, "Float": true, "String": true, "Boolean": true, "ID": true}
	var missing []string
	for _, ty := range data.Schema.Types {
		if strings.HasPrefix(ty.Name, "__") || builtin[ty.Name] {
			continue
		}
		if ty.Description == "" {
			missing = append(missing, ty.Name)
		}
		for _, f := range ty.Fields {
			if f.Description == "" {
				missing = append(missing, ty.Name+"."+f.Name)
			}
			for _, a := range f.Args {
				if a.Description == "" {
					missing = append(missing, ty.Name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, v := range append(ty.InputFields, ty.EnumValues...) {
			if v.Description == "" {
				missing = append(missing, ty.Name+"."+v.Name)
			}
		}
	}
	if len(data.Schema.Types) < 20 || len(missing) > 0 {
		t.Errorf("%d types; without a description: %v", len(data.Schema.Types), missing)
	}
}

// TestSubscriptionOverHTTP: a subscription sent by POST is refused with a
// message that says where subscriptions go, and nothing runs.
func TestSubscriptionOverHTTP(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	r := b.Post(t, apitest.Request{Query: "subscription { boardProgress(n: 4) { n state } }"})
	if r.Status != http.StatusBadRequest || r.Code() != "BAD_USER_INPUT" || !strings.Contains(r.Message(), "websocket") || len(r.Data) > 0 {
		t.Errorf("a subscription by POST: status %d, code %q, data %s: %s", r.Status, r.Code(), r.Data, r.Message())
	}
}
