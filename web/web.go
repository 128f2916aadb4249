// Package web is the board viewer: a static page (HTML, CSS and one ES
// module; no framework, no CDN, no build step) embedded in the binary and
// served at /. The page talks only to /graphql on the same origin: queries
// over GET (so the browser caches the pages that never change), the
// precompute mutation over POST, and boardProgress over a websocket
// (graphql-transport-ws).
//
// Mount it last, at "/" without a method, so that the more specific routes
// (/graphql, /playground, /healthz, …) keep theirs:
//
//	srv.Handle("/", web.Handler())
//
// The package serves the GraphQL playground too, GraphiQL at /playground,
// from files embedded the same way (playground.go).
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed static
var files embed.FS

// contentTypes are the media types of the assets, fixed here rather than
// taken from the system's mime tables, which differ between machines.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".txt":  "text/plain; charset=utf-8",
}

// securityHeaders go on every answer. The page loads nothing from
// elsewhere: scripts, styles and fetches stay on this origin; images are
// the API's SVG boards as data: URLs.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; " +
		"img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "same-origin",
	"X-Frame-Options":        "DENY",
}

// An asset is one embedded file, ready to send.
type asset struct {
	body  []byte
	ctype string
	hash  string // first 16 hex digits of the body's SHA-256
	// gz is the gzip of body, made on first use (GraphiQL's bundle takes
	// a quarter of a second: not at every start); nil when it would not pay.
	gz     []byte
	gzOnce sync.Once
}

func (a *asset) etag(gz bool) string {
	if gz {
		return `"` + a.hash + `-gz"`
	}
	return `"` + a.hash + `"`
}

// load reads the embedded files once. index.html is rewritten so that it
// names the other assets with their hashes (/app.js?v=…): those URLs change
// with their content and can be cached for a year; index.html itself is
// revalidated on every load.
func load() (map[string]*asset, error) {
	assets := map[string]*asset{}
	if err := readAssets(files, "static", "/", assets); err != nil {
		return nil, err
	}
	index, ok := assets["/index.html"]
	if !ok {
		return nil, fs.ErrNotExist
	}
	delete(assets, "/index.html")
	finish(index, assets)
	assets["/index.html"] = index
	return assets, nil
}

// readAssets adds the files under root in fsys to assets, each named by
// prefix and its path below root.
func readAssets(fsys fs.FS, root, prefix string, assets map[string]*asset) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		assets[prefix+strings.TrimPrefix(p, root+"/")] = &asset{body: body, ctype: contentType(p)}
		return nil
	})
}

// contentType is the media type of an asset by its name; a name without
// an extension is a text (LICENSE, VERSIONS).
func contentType(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		return contentTypes[".txt"]
	}
	if ctype, ok := contentTypes[ext]; ok {
		return ctype
	}
	return "application/octet-stream"
}

// finish hashes the assets and rewrites page so that it names each of
// them with its hash.
func finish(page *asset, assets map[string]*asset) {
	for name, a := range assets {
		a.hash = hash(a.body)
		page.body = bytes.ReplaceAll(page.body, []byte(`"`+name+`"`), []byte(`"`+name+`?v=`+a.hash+`"`))
	}
	page.hash = hash(page.body)
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// gzipped returns the gzip of the asset's body, or nil when it would not
// pay.
func (a *asset) gzipped() []byte {
	a.gzOnce.Do(func() { a.gz = compress(a) })
	return a.gz
}

// compress gzips the text assets that are worth it.
func compress(a *asset) []byte {
	if len(a.body) < 1024 || strings.HasPrefix(a.ctype, "image/png") {
		return nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(a.body)
	_ = zw.Close()
	if buf.Len() >= len(a.body) {
		return nil
	}
	return buf.Bytes()
}

var loadOnce = sync.OnceValues(load)

// Handler serves the viewer: the page at /, its assets by name, 404 for
// any other path, 405 for methods other than GET and HEAD.
func Handler() http.Handler {
	assets, err := loadOnce()
	if err != nil {
		// The files are compiled in: a failure here is a build mistake.
		panic("web: embedded files: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range securityHeaders {
			h.Set(k, v)
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method "+r.Method+" is not allowed here; the viewer answers GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		name := r.URL.Path
		switch name {
		case "/":
			name = "/index.html"
		case "/index.html":
			target := "/"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusMovedPermanently)
			return
		}
		a, ok := assets[name]
		if !ok {
			h.Set("Cache-Control", "no-store")
			http.Error(w, "404 not found: the viewer is at /, the API at /graphql", http.StatusNotFound)
			return
		}
		serve(w, r, a, name == "/index.html")
	})
}

// serve answers with a, revalidated on every load when page (a page's
// address never changes), else cached for a year when the request names
// its hash.
func serve(w http.ResponseWriter, r *http.Request, a *asset, page bool) {
	h := w.Header()
	switch {
	case page:
		h.Set("Cache-Control", "no-cache")
	case r.URL.Query().Get("v") == a.hash:
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	default:
		h.Set("Cache-Control", "no-cache")
	}
	body, gz := a.body, false
	if zipped := a.gzipped(); zipped != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, gz = zipped, true
		}
	}
	etag := a.etag(gz)
	h.Set("ETag", etag)
	if match(r.Header.Get("If-None-Match"), a) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.ctype)
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// match reports whether If-None-Match names either encoding of a (weak
// comparison, as for GET).
func match(header string, a *asset) bool {
	if header == "" {
		return false
	}
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == "*" || part == a.etag(false) || part == a.etag(true) {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (and
// does not refuse it with q=0).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		params = strings.ReplaceAll(params, " ", "")
		return !(strings.HasPrefix(params, "q=0") && strings.Trim(strings.TrimPrefix(params, "q=0"), ".0") == "")
	}
	return false
}
