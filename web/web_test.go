package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/web"
)

func get(t *testing.T, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// assetURLs are the hashed asset URLs index.html names.
var assetURL = regexp.MustCompile(`"(/[a-z]+\.[a-z]+)\?v=([0-9a-f]{16})"`)

func TestIndex(t *testing.T) {
	h := web.Handler()
	rec := get(t, h, http.MethodGet, "/")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /: %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("index Cache-Control %q, want no-cache (revalidated on every load)", cc)
	}
	for _, k := range []string{"Content-Security-Policy", "X-Content-Type-Options", "ETag"} {
		if rec.Header().Get(k) == "" {
			t.Errorf("no %s header", k)
		}
	}
	body := rec.Body.String()
	for _, want := range []string{`<html lang="en">`, `id="n"`, `id="boards"`, `id="vboard"`, `<dialog id="details"`} {
		if !strings.Contains(body, want) {
			t.Errorf("index has no %s", want)
		}
	}
	// Nothing from elsewhere: no CDN, no absolute script or style URLs.
	if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(strings.Split(body, "<footer")[0]) {
		t.Error("the page loads something from another origin")
	}
	found := map[string]bool{}
	for _, m := range assetURL.FindAllStringSubmatch(body, -1) {
		found[m[1]] = true
		rec := get(t, h, http.MethodGet, m[1]+"?v="+m[2])
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", m[1], rec.Code)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s?v=<its hash>: Cache-Control %q, want a year, immutable", m[1], cc)
		}
		if et := rec.Header().Get("ETag"); et != `"`+m[2]+`"` {
			t.Errorf("%s: ETag %s, want the hash in the URL %q", m[1], et, m[2])
		}
		stale := get(t, h, http.MethodGet, m[1]+"?v=0000000000000000")
		if cc := stale.Header().Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("%s with another hash: Cache-Control %q, want no-cache", m[1], cc)
		}
	}
	for _, want := range []string{"/app.js", "/style.css", "/favicon.svg"} {
		if !found[want] {
			t.Errorf("index does not name %s with its hash", want)
		}
	}
}

func TestContentTypes(t *testing.T) {
	h := web.Handler()
	for path, want := range map[string]string{
		"/app.js":      "text/javascript; charset=utf-8",
		"/style.css":   "text/css; charset=utf-8",
		"/favicon.svg": "image/svg+xml",
	} {
		rec := get(t, h, http.MethodGet, path)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != want {
			t.Errorf("GET %s: %d %q, want 200 %q", path, rec.Code, rec.Header().Get("Content-Type"), want)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", path)
		}
	}
}

func TestConditionalAndCompressed(t *testing.T) {
	h := web.Handler()
	plain := get(t, h, http.MethodGet, "/app.js")
	etag := plain.Header().Get("ETag")
	if rec := get(t, h, http.MethodGet, "/app.js", "If-None-Match", etag); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match %s: %d with %d bytes, want 304 and none", etag, rec.Code, rec.Body.Len())
	}
	gz := get(t, h, http.MethodGet, "/app.js", "Accept-Encoding", "br, gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" || !strings.Contains(gz.Header().Get("Vary"), "Accept-Encoding") {
		t.Fatalf("Accept-Encoding gzip: Content-Encoding %q, Vary %q", gz.Header().Get("Content-Encoding"), gz.Header().Get("Vary"))
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) {
		t.Errorf("the gzipped body is not the file (%v)", err)
	}
	if gz.Header().Get("ETag") == etag {
		t.Error("the gzipped and plain bodies share an ETag")
	}
	if rec := get(t, h, http.MethodGet, "/app.js", "Accept-Encoding", "gzip;q=0"); rec.Header().Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 got a gzipped body")
	}
	head := get(t, h, http.MethodHead, "/app.js")
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") != plain.Header().Get("Content-Length") {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %q", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	h := web.Handler()
	for _, path := range []string{"/nope", "/static/app.js", "/app.js/", "/../go.mod"} {
		if rec := get(t, h, http.MethodGet, path); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
	rec := get(t, h, http.MethodPost, "/")
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	rec = get(t, h, http.MethodGet, "/index.html?n=8")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/?n=8" {
		t.Errorf("GET /index.html: %d to %q, want 301 to /?n=8", rec.Code, rec.Header().Get("Location"))
	}
}
