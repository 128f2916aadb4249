package web

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"sync"
)

// The GraphQL playground: GraphiQL with the explorer plugin, served from
// the binary so that it works with no network. playground/vendor holds the
// browser builds of GraphiQL, React and the plugin as their npm packages
// ship them (playground/fetch.sh copies them, with their licences, at the
// versions playground/package-lock.json pins); playground/page is the page
// that starts them, playground/examples the operations it opens as tabs.
//
// Mount it at /playground and below (server.go does):
//
//	mux.Handle("/playground", web.Playground())
//	mux.Handle("/playground/", web.Playground())
//
//go:embed playground/page playground/examples playground/vendor
var playgroundFiles embed.FS

const (
	playgroundPath   = "/playground"
	playgroundAssets = "/playground/assets/"
)

// playgroundCSP is the Content-Security-Policy of the playground, its
// style-src sources ending with %s. Everything the page loads and every
// request it makes stay on this origin; GraphiQL's stylesheet carries its
// fonts and a few images as data: URLs. No inline script is allowed (the
// page's own script is a file), and one inline style only: the one
// GraphiQL's dialogs add while open, which carries the nonce of the page's
// answer (playground.js hands it to GraphiQL).
const playgroundCSP = "default-src 'none'; script-src 'self'; style-src 'self'%s; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// playgroundNonceSlot is where the page takes its nonce: on the element of
// its script.
const playgroundNonceSlot = `nonce="{nonce}"`

// playgroundHeaders go on every answer of the playground; the page's own
// replaces the Content-Security-Policy with one that holds its nonce.
var playgroundHeaders = map[string]string{
	"Content-Security-Policy": fmt.Sprintf(playgroundCSP, ""),
	"X-Content-Type-Options":  "nosniff",
	"Referrer-Policy":         "same-origin",
	"X-Frame-Options":         "DENY",
}

// loadPlayground reads the playground's files once: the page, with the
// examples put in it as JSON and every asset named with its hash, and the
// assets by URL path (/playground/assets/graphiql/graphiql.min.js, …).
func loadPlayground() (*asset, map[string]*asset, error) {
	assets := map[string]*asset{}
	if err := readAssets(playgroundFiles, "playground/vendor", playgroundAssets, assets); err != nil {
		return nil, nil, err
	}
	if err := readAssets(playgroundFiles, "playground/page", playgroundAssets, assets); err != nil {
		return nil, nil, err
	}
	page, ok := assets[playgroundAssets+"index.html"]
	if !ok {
		return nil, nil, fmt.Errorf("playground/page/index.html: %w", fs.ErrNotExist)
	}
	delete(assets, playgroundAssets+"index.html")
	icon, err := files.ReadFile("static/favicon.svg") // the viewer's
	if err != nil {
		return nil, nil, err
	}
	assets[playgroundAssets+"favicon.svg"] = &asset{body: icon, ctype: contentType("favicon.svg")}

	examples, err := playgroundExamples()
	if err != nil {
		return nil, nil, err
	}
	// json.Marshal writes < and > as \u003c and \u003e: the text cannot end
	// the script element it goes in.
	js, err := json.Marshal(examples)
	if err != nil {
		return nil, nil, err
	}
	const slot = `<script type="application/json" id="examples">[]</script>`
	if !bytes.Contains(page.body, []byte(slot)) {
		return nil, nil, fmt.Errorf("playground/page/index.html has no %s", slot)
	}
	if !bytes.Contains(page.body, []byte(playgroundNonceSlot)) {
		return nil, nil, fmt.Errorf("playground/page/index.html has no %s", playgroundNonceSlot)
	}
	page.body = bytes.Replace(page.body, []byte(slot),
		[]byte(`<script type="application/json" id="examples">`+string(js)+`</script>`), 1)
	finish(page, assets)
	return page, assets, nil
}

// playgroundExamples are the example operations, in the order of their
// file names.
func playgroundExamples() ([]string, error) {
	names, err := fs.Glob(playgroundFiles, "playground/examples/*.graphql")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("playground/examples: no *.graphql files")
	}
	examples := make([]string, 0, len(names))
	for _, name := range names { // fs.Glob sorts them
		body, err := playgroundFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		examples = append(examples, string(body))
	}
	return examples, nil
}

var loadPlaygroundOnce = sync.OnceValues(func() (playground, error) {
	page, assets, err := loadPlayground()
	return playground{page, assets}, err
})

type playground struct {
	page   *asset
	assets map[string]*asset
}

// Playground serves GraphiQL: the page at /playground (never cached: each
// answer has a nonce of its own), its assets under /playground/assets/ by
// name (cached for a year when the URL carries their hash, as the page's
// do), 404 for any other path, 405 for methods other than GET and HEAD.
func Playground() http.Handler {
	pg, err := loadPlaygroundOnce()
	if err != nil {
		// The files are compiled in: a failure here is a build mistake.
		panic("web: embedded playground files: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range playgroundHeaders {
			h.Set(k, v)
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method "+r.Method+" is not allowed here; the playground answers GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		name := path.Clean(r.URL.Path)
		if name == playgroundPath {
			if r.URL.Path != playgroundPath { // /playground/
				http.Redirect(w, r, playgroundPath, http.StatusMovedPermanently)
				return
			}
			servePlaygroundPage(w, r, pg.page.body)
			return
		}
		a, ok := pg.assets[r.URL.Path]
		if !ok {
			h.Set("Cache-Control", "no-store")
			http.Error(w, "404 not found: the playground is at /playground, the API at /graphql", http.StatusNotFound)
			return
		}
		serve(w, r, a, false)
	})
}

// servePlaygroundPage answers with the page and a fresh nonce, in the
// page and in its Content-Security-Policy.
func servePlaygroundPage(w http.ResponseWriter, r *http.Request, page []byte) {
	var random [16]byte
	_, _ = rand.Read(random[:]) // crypto/rand.Read never fails
	nonce := base64.RawURLEncoding.EncodeToString(random[:])
	body := bytes.Replace(page, []byte(playgroundNonceSlot), []byte(`nonce="`+nonce+`"`), 1)
	h := w.Header()
	h.Set("Content-Security-Policy", fmt.Sprintf(playgroundCSP, " 'nonce-"+nonce+"'"))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", contentTypes[".html"])
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
