package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
)

// SchemaSDL writes schema as the SDL the server serves at
// /graphql/schema.graphql and graph/schema.graphql keeps (TestSchemaSDL):
// the types the API declares, with their descriptions, without GraphQL's
// built-in ones.
func SchemaSDL(schema *ast.Schema) []byte {
	var b bytes.Buffer
	formatter.NewFormatter(&b, formatter.WithIndent("  ")).FormatSchema(schema)
	return b.Bytes()
}

// serveSchema answers GET /graphql/schema.graphql with the SDL of the
// schema the server runs: the stable address frontend toolchains
// (graphql-codegen, graphql-inspector, IDEs) read it from, without the
// introspection query. It is a constant of the build: an ETag, and
// revalidated (no-cache) so that a new build's schema is seen at once.
func (s *Server) serveSchema() http.HandlerFunc {
	sdl := SchemaSDL(s.gqlSchema)
	sum := sha256.Sum256(sdl)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("Cache-Control", "no-cache")
		if _, ok := etagMatch(r.Header.Get("If-None-Match"), etag); ok {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "application/graphql; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(sdl)
	}
}
