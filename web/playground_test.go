package web_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/web"
)

// playgroundAssetURL matches the hashed asset URLs the playground's page
// names.
var playgroundAssetURL = regexp.MustCompile(`"(/playground/assets/[^"?]+)\?v=([0-9a-f]{16})"`)

// examplesInPage matches the JSON block the examples go in.
var examplesInPage = regexp.MustCompile(`<script type="application/json" id="examples">([^<]*)</script>`)

// exampleFiles reads the example operations from the source tree, in the
// order of their names, as the page should carry them.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("playground/examples/*.graphql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no examples in playground/examples (%v)", err)
	}
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func TestPlaygroundPage(t *testing.T) {
	t.Parallel()
	h := web.Playground()
	rec := get(t, h, http.MethodGet, "/playground")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /playground: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("page Cache-Control %q, want no-store (each answer has its nonce)", cc)
	}
	// Only this origin: no source other than 'self' and the data: URLs of
	// GraphiQL's stylesheet, no inline script, inline style only with the
	// answer's nonce, which is on the page's script for it to hand on.
	csp := rec.Header().Get("Content-Security-Policy")
	var nonce string
	for _, directive := range strings.Split(csp, ";") {
		name, sources, _ := strings.Cut(strings.TrimSpace(directive), " ")
		for src := range strings.FieldsSeq(sources) {
			if name == "style-src" && strings.HasPrefix(src, "'nonce-") {
				nonce = strings.TrimSuffix(strings.TrimPrefix(src, "'nonce-"), "'")
				continue
			}
			allowed := src == "'self'" || src == "'none'" || src == "data:" && (name == "img-src" || name == "font-src")
			if !allowed {
				t.Errorf("Content-Security-Policy allows %s in %s: %s", src, name, csp)
			}
		}
	}
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "style-src 'self' 'nonce-", "connect-src 'self';", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy has no %s: %s", want, csp)
		}
	}
	body := rec.Body.String()
	if len(nonce) < 22 || !strings.Contains(body, `src="/playground/assets/playground.js?v=`) ||
		!regexp.MustCompile(`<script defer src="/playground/assets/playground.js\?v=[0-9a-f]{16}" nonce="`+regexp.QuoteMeta(nonce)+`">`).MatchString(body) {
		t.Errorf("the style nonce %q is not on the page's script", nonce)
	}
	if again := get(t, h, http.MethodGet, "/playground").Header().Get("Content-Security-Policy"); again == csp {
		t.Error("two answers share a nonce")
	}
	assetCSP := strings.Replace(csp, " 'nonce-"+nonce+"'", "", 1)

	// No URL of another origin in the page or in its own script and style.
	elsewhere := regexp.MustCompile(`(?i)(https?:|wss?:)?//[a-z0-9.-]+\.[a-z]{2,}|cdn|unpkg|jsdelivr|esm\.sh`)
	for name, text := range map[string]string{"page": body, "playground.js": get(t, h, http.MethodGet, "/playground/assets/playground.js").Body.String(),
		"playground.css": get(t, h, http.MethodGet, "/playground/assets/playground.css").Body.String()} {
		if m := elsewhere.FindString(text); m != "" {
			t.Errorf("%s names another origin: %q", name, m)
		}
	}

	found := map[string]bool{}
	for _, m := range playgroundAssetURL.FindAllStringSubmatch(body, -1) {
		found[m[1]] = true
		rec := get(t, h, http.MethodGet, m[1]+"?v="+m[2])
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d, %d bytes", m[1], rec.Code, rec.Body.Len())
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s?v=<its hash>: Cache-Control %q, want a year, immutable", m[1], cc)
		}
		if got := rec.Header().Get("Content-Security-Policy"); got != assetCSP {
			t.Errorf("%s: Content-Security-Policy %q, want the page's without its nonce", m[1], got)
		}
		if cc := get(t, h, http.MethodGet, m[1]+"?v=0000000000000000").Header().Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("%s with another hash: Cache-Control %q, want no-cache", m[1], cc)
		}
	}
	for _, want := range []string{
		"/playground/assets/react/react.production.min.js",
		"/playground/assets/react-dom/react-dom.production.min.js",
		"/playground/assets/graphiql/graphiql.min.js",
		"/playground/assets/graphiql/graphiql.min.css",
		"/playground/assets/plugin-explorer/index.umd.js",
		"/playground/assets/plugin-explorer/style.css",
		"/playground/assets/playground.js",
		"/playground/assets/playground.css",
		"/playground/assets/favicon.svg",
	} {
		if !found[want] {
			t.Errorf("the page does not name %s with its hash", want)
		}
	}

	// The examples, in the order of their files.
	m := examplesInPage.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the page has no examples block")
	}
	var examples []string
	if err := json.Unmarshal([]byte(m[1]), &examples); err != nil {
		t.Fatalf("examples block: %v", err)
	}
	if want := exampleFiles(t); !slices.Equal(examples, want) {
		t.Errorf("the page's examples differ from playground/examples/*.graphql:\n%q\nwant\n%q", examples, want)
	}
}

func TestPlaygroundPaths(t *testing.T) {
	t.Parallel()
	h := web.Playground()
	for _, path := range []string{"/playground/assets/", "/playground/assets/nope.js", "/playground/index.html",
		"/playground/assets/index.html", "/playground/assets/../vendor/VERSIONS", "/playground/page/playground.js"} {
		if rec := get(t, h, http.MethodGet, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
	if rec := get(t, h, http.MethodGet, "/playground/"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/playground" {
		t.Errorf("GET /playground/: %d to %q, want 301 to /playground", rec.Code, rec.Header().Get("Location"))
	}
	rec := get(t, h, http.MethodPost, "/playground")
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /playground: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	if page := get(t, h, http.MethodHead, "/playground"); page.Code != http.StatusOK || page.Body.Len() != 0 || page.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD /playground: %d, %d bytes, Content-Length %q", page.Code, page.Body.Len(), page.Header().Get("Content-Length"))
	}
	head := get(t, h, http.MethodHead, "/playground/assets/graphiql/graphiql.min.js")
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD graphiql.min.js: %d, %d bytes, Content-Length %q", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
	}
	gz := get(t, h, http.MethodGet, "/playground/assets/graphiql/graphiql.min.js", "Accept-Encoding", "gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" || gz.Body.Len() >= 1<<20 {
		t.Errorf("graphiql.min.js with gzip: Content-Encoding %q, %d bytes", gz.Header().Get("Content-Encoding"), gz.Body.Len())
	}
}

// TestPlaygroundLicences: every vendored package has its licence next to
// its files, served as text, and vendor/VERSIONS records the versions
// package-lock.json pins (fetch.sh was run after the last change of
// package.json).
func TestPlaygroundLicences(t *testing.T) {
	t.Parallel()
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	b, err := os.ReadFile("playground/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if b, err = os.ReadFile("playground/package.json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open("playground/vendor/VERSIONS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := web.Playground()
	recorded := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		fields := strings.Fields(line) // package version licence folder
		if len(fields) < 4 {
			t.Fatalf("VERSIONS line %q: want package version licence folder", line)
		}
		name, version, dir := fields[0], fields[1], fields[3]
		recorded[name] = true
		if locked := lock.Packages["node_modules/"+name].Version; version != locked || pkg.Dependencies[name] != locked {
			t.Errorf("%s: vendor/VERSIONS has %s, package.json pins %q, package-lock.json %q: run web/playground/fetch.sh",
				name, version, pkg.Dependencies[name], locked)
		}
		rec := get(t, h, http.MethodGet, "/playground/assets/"+dir+"LICENSE")
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" ||
			!strings.Contains(rec.Body.String(), "Permission is hereby granted") {
			t.Errorf("%s: /playground/assets/%sLICENSE: %d %q, want its MIT licence as text", name, dir, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for name := range pkg.Dependencies {
		if !recorded[name] {
			t.Errorf("package.json depends on %s, which vendor/VERSIONS does not record", name)
		}
	}
	third := get(t, h, http.MethodGet, "/playground/assets/graphiql/THIRD-PARTY-LICENSES").Body.String()
	for _, want := range []string{"graphql@", "graphql-ws@", "codemirror@", "@radix-ui/"} {
		if !strings.Contains(third, want) {
			t.Errorf("graphiql's THIRD-PARTY-LICENSES names no %s", want)
		}
	}
}

// TestPlaygroundExamples runs every example tab against the real server
// under its default limits: each answers without an error, with what the
// example says it shows.
func TestPlaygroundExamples(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	api := apitest.Setup(t)
	var names []string
	for _, text := range exampleFiles(t) {
		doc, err := parser.ParseQuery(&ast.Source{Input: text})
		if err != nil {
			t.Fatalf("example does not parse: %v\n%s", err, text)
		}
		if len(doc.Operations) != 1 || doc.Operations[0].Name == "" {
			t.Fatalf("an example has one named operation (its tab's title):\n%s", text)
		}
		op := doc.Operations[0]
		names = append(names, op.Name)
		if op.Operation == ast.Subscription {
			sub := api.Subscribe(t, t.Context(), text, nil)
			var data struct{ BoardProgress struct{ N int } }
			if !sub.Next(t, &data) || data.BoardProgress.N != 8 {
				t.Errorf("%s: no board of N=8 (%+v)", op.Name, data)
			}
			continue
		}
		r := api.Post(t, apitest.Request{Query: text})
		if r.Status != http.StatusOK || len(r.Errors) > 0 {
			t.Errorf("%s: %d %s", op.Name, r.Status, r.Raw)
			continue
		}
		var data map[string]json.RawMessage
		if err := json.Unmarshal(r.Data, &data); err != nil {
			t.Fatal(err)
		}
		for field, v := range data {
			if string(v) == "null" {
				t.Errorf("%s: %s is null", op.Name, field)
			}
		}
		check := map[string]func(){
			"Count": func() {
				var c struct{ Total, Unique string }
				_ = json.Unmarshal(data["count"], &c)
				if c.Total != strconv.FormatUint(ref[8].Total, 10) || c.Unique != strconv.FormatUint(ref[8].Unique, 10) {
					t.Errorf("Count: %+v, want OEIS %d and %d", c, ref[8].Total, ref[8].Unique)
				}
			},
			"SolverPageN20": func() {
				var c struct {
					Source string
					Nodes  []struct{ Placement []int }
				}
				_ = json.Unmarshal(data["solutions"], &c)
				if c.Source != "SOLVER" || len(c.Nodes) == 0 {
					t.Errorf("SolverPageN20: %s", data["solutions"])
				}
				for _, n := range c.Nodes {
					if len(n.Placement) != 20 || solver.Validate(solver.Placement(n.Placement)) != nil {
						t.Errorf("SolverPageN20: %v is not a solution of N=20", n.Placement)
					}
				}
			},
			"Where": func() {
				// The example's filter: a queen on (0, 3), none on (4, 4).
				f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 3}}, Empty: []solver.Square{{Row: 4, Col: 4}}}
				var want []solver.Placement
				for p := range solver.All(10) {
					if f.Matches(p) {
						want = append(want, p.Clone())
					}
				}
				var count struct{ Total string }
				var page struct {
					TotalCount string
					Edges      []struct{ Node struct{ Placement []int } }
				}
				_ = json.Unmarshal(data["count"], &count)
				_ = json.Unmarshal(data["solutions"], &page)
				total := strconv.Itoa(len(want))
				if count.Total != total || page.TotalCount != total || len(page.Edges) != 5 {
					t.Fatalf("Where: %s, want %d solutions", r.Data, len(want))
				}
				for i, e := range page.Edges {
					if !slices.Equal(e.Node.Placement, want[i]) {
						t.Errorf("Where: solution %d is %v, want %v", i, e.Node.Placement, want[i])
					}
				}
			},
			// A server without a store: no statistics (null, not an error).
			"SquareCounts": func() {
				var b struct {
					State        string
					SquareCounts *[][]string
				}
				_ = json.Unmarshal(data["board"], &b)
				if b.State != "UNKNOWN" || b.SquareCounts != nil {
					t.Errorf("SquareCounts: %s", data["board"])
				}
			},
			"Validate": func() {
				var ok, bad struct{ Valid bool }
				_ = json.Unmarshal(data["solution"], &ok)
				_ = json.Unmarshal(data["conflict"], &bad)
				if !ok.Valid || bad.Valid {
					t.Errorf("Validate: %s", r.Data)
				}
			},
			"Complete": func() {
				var completed struct {
					State     string
					Placement []int
				}
				var impossible, large struct{ State string }
				_ = json.Unmarshal(data["completed"], &completed)
				_ = json.Unmarshal(data["impossible"], &impossible)
				_ = json.Unmarshal(data["large"], &large)
				if completed.State != "COMPLETED" || solver.Validate(completed.Placement) != nil || len(completed.Placement) != 8 || completed.Placement[0] != 0 ||
					impossible.State != "IMPOSSIBLE" || large.State != "COMPLETED" {
					t.Errorf("Complete: %s", r.Data)
				}
			},
		}
		if f := check[op.Name]; f != nil {
			f()
		}
	}
	want := []string{"Count", "SolutionsPage", "UniqueClasses", "SolverPageN20", "Validate", "BoardProgress", "Complete", "Where", "SquareCounts"}
	if !slices.Equal(names, want) {
		t.Errorf("examples %q, want %q", names, want)
	}
}
