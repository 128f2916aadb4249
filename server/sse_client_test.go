package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/internal/testgate"
)

// TestSSEClient runs the graphql-sse package's client (as a frontend
// uses it, with Node's fetch) against the real server with the real
// precompute engine: it subscribes to boardProgress, asks for the
// precompute, and follows the board to DONE with the published count,
// then asks for the count as a query (testdata/sse-client/follow.mjs).
// It needs node and the client's packages (npm ci in
// testdata/sse-client); without them it skips, unless
// NQUEENS_REQUIRE_SSE_CLIENT=1 (as .ci/run sets it) makes that a failure.
func TestSSEClient(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "sse-client")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "graphql-sse", "package.json"))
	}
	if err != nil {
		testgate.Suite{
			Name:    "the graphql-sse client's test",
			Require: "NQUEENS_REQUIRE_SSE_CLIENT",
			Enable:  "install Node.js and npm (apt-get install -y nodejs npm), then run: npm ci --prefix server/testdata/sse-client",
		}.Missing(t, "it needs node and its packages ("+err.Error()+")")
	}

	const token, n = "sse-client-token", 8
	b := setupPrecompute(t, token)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "follow.mjs", b.URL, token, strconv.Itoa(n))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node follow.mjs: %v; it printed %s", err, out)
	}
	var got struct {
		States []string
		Total  string
		Count  string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node follow.mjs printed %q: %v", out, err)
	}
	t.Logf("the graphql-sse client saw %v, total %s; count %s", got.States, got.Total, got.Count)
	want := fmt.Sprint(oeis.MustLoad(t)[n].Total)
	if len(got.States) < 2 || got.States[0] != "UNKNOWN" || got.States[len(got.States)-1] != "DONE" {
		t.Errorf("states %v; want UNKNOWN first, DONE last", got.States)
	}
	if got.Total != want || got.Count != want {
		t.Errorf("total %s, count %s; the published count of N=%d is %s", got.Total, got.Count, n, want)
	}
}
