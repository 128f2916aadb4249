package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/testgate"
)

// TestGraphQLOverHTTPAudit runs the graphql-http package's server audits
// (GraphQL over HTTP conformance) against the real server on a loopback
// port: every audit must pass, without errors or warnings. It needs node
// and the audit's packages (npm ci in testdata/graphql-http); without
// them it skips, unless NQUEENS_REQUIRE_HTTP_AUDIT=1 (as .ci/run sets it)
// makes that a failure.
func TestGraphQLOverHTTPAudit(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "graphql-http")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "graphql-http", "package.json"))
	}
	if err != nil {
		testgate.Suite{
			Name:    "the GraphQL-over-HTTP audit",
			Require: "NQUEENS_REQUIRE_HTTP_AUDIT",
			Enable:  "install Node.js and npm (apt-get install -y nodejs npm), then run: npm ci --prefix server/testdata/graphql-http",
		}.Missing(t, "it needs node and its packages ("+err.Error()+")")
	}

	b := apitest.Setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "audit.mjs", b.URL)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node audit.mjs %s:\n%s", b.URL, out)
	if err != nil {
		t.Fatalf("the audit failed (%v); its output is above", err)
	}
}
