package server_test

import (
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

var updateSDL = flag.Bool("update-sdl", false, "write the schema the server serves to graph/schema.graphql")

// committedSDL is the SDL kept in the repository for toolchains.
var committedSDL = filepath.Join("..", "graph", "schema.graphql")

// TestSchemaSDL: /graphql/schema.graphql serves the SDL of the schema the
// server runs, equal to the committed graph/schema.graphql (go test
// ./server -run TestSchemaSDL -update-sdl writes it), a schema that parses
// on its own, with an ETag and 304s.
func TestSchemaSDL(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t)
	resp, err := http.Get(b.Base + "/graphql/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	sdl, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/graphql") {
		t.Fatalf("GET /graphql/schema.graphql: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if *updateSDL {
		if err := os.WriteFile(committedSDL, sdl, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(committedSDL)
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != string(sdl) {
		t.Errorf("the served schema differs from %s: run go test ./server -run TestSchemaSDL -update-sdl, and check the change with the schema's toolchain test (go test ./graph -run TestSchemaToolchain)", committedSDL)
	}
	schema, gqlErr := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(sdl)})
	if gqlErr != nil {
		t.Fatalf("the served SDL does not load: %v", gqlErr)
	}
	for _, name := range []string{"Query", "Mutation", "Subscription", "SolutionConnection", "BigInt"} {
		if schema.Types[name] == nil {
			t.Errorf("the served SDL has no %s", name)
		}
	}
	if schema.Query.Fields.ForName("solutions") == nil {
		t.Error("the served SDL has no Query.solutions")
	}

	req, _ := http.NewRequest(http.MethodGet, b.Base+"/graphql/schema.graphql", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with its ETag: %d, want 304", again.StatusCode)
	}
}
