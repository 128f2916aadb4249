package graph_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/testgate"
)

// toolchain is where the frontend toolchain's packages and files live.
var toolchain = filepath.Join("testdata", "toolchain")

// TestSchemaToolchain runs what a frontend team runs against the committed
// SDL (graph/schema.graphql, which TestSchemaSDL in ./server keeps equal
// to what the server serves): graphql-inspector finds no breaking change
// since graph/schema-released.graphql that graph/schema-breaking.txt does
// not acknowledge, and does find one made on purpose; graphql-codegen
// types the playground's example documents, and tsc compiles them with a
// client that uses them. It needs node and the packages (npm ci in
// testdata/toolchain); without them it skips, unless
// NQUEENS_REQUIRE_SCHEMA_TOOLCHAIN=1 (as .ci/run sets it).
func TestSchemaToolchain(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(toolchain, "node_modules", "@graphql-inspector", "core", "package.json"))
	}
	if err != nil {
		testgate.Suite{
			Name:    "the schema's toolchain (graphql-inspector, graphql-codegen, tsc)",
			Require: "NQUEENS_REQUIRE_SCHEMA_TOOLCHAIN",
			Enable:  "install Node.js and npm (apt-get install -y nodejs npm), then run: npm ci --prefix graph/testdata/toolchain",
		}.Missing(t, "it needs node and its packages ("+err.Error()+")")
	}
	run := func(name string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = toolchain
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	t.Run("compatible", func(t *testing.T) {
		out, err := run(node, "check.mjs", "../../schema-released.graphql", "../../schema.graphql", "../../schema-breaking.txt")
		if err != nil {
			t.Fatalf("graphql-inspector: %v\n%s", err, out)
		}
		t.Logf("graphql-inspector:\n%s", out)
	})
	t.Run("breaking change caught", func(t *testing.T) {
		sdl, err := os.ReadFile(filepath.Join("schema.graphql"))
		if err != nil {
			t.Fatal(err)
		}
		broken := filepath.Join(t.TempDir(), "broken.graphql")
		// Query.count renamed: every client asking for count breaks.
		if err := os.WriteFile(broken, []byte(strings.Replace(string(sdl), "\n  count(", "\n  tally(", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run(node, "check.mjs", "../../schema-released.graphql", broken, "../../schema-breaking.txt")
		if err == nil || !strings.Contains(out, "BREAKING: Field 'count' was removed from object type 'Query'") {
			t.Fatalf("graphql-inspector let a removed field through (%v):\n%s", err, out)
		}
		ack := filepath.Join(t.TempDir(), "acknowledged.txt")
		if err := os.WriteFile(ack, []byte("Field 'count' was removed from object type 'Query'\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run(node, "check.mjs", "../../schema-released.graphql", broken, ack); err != nil {
			t.Fatalf("the change acknowledged, graphql-inspector still fails (%v):\n%s", err, out)
		}
	})
	t.Run("typed client compiles", func(t *testing.T) {
		if out, err := run(filepath.Join("node_modules", ".bin", "graphql-codegen"), "--config", "codegen.yml"); err != nil {
			t.Fatalf("graphql-codegen: %v\n%s", err, out)
		}
		if out, err := run(filepath.Join("node_modules", ".bin", "tsc"), "-p", "tsconfig.json"); err != nil {
			t.Fatalf("tsc: %v\n%s", err, out)
		}
	})
}
