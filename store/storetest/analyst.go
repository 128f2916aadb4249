package storetest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/testgate"
)

// ExampleBound is how long an example of docs/schema.md may take through an
// analyst's tool (the sqlite3 shell, psql), process start included, on a
// database of real size: the one that NQUEENS_ANALYST_SQLITE_PATH or
// NQUEENS_ANALYST_DATABASE_URL names.
const ExampleBound = time.Second

// HungToolBound stops a tool that hangs: on the tests' own small
// databases, and for what reads a whole file (PRAGMA integrity_check). It
// bounds nothing that docs/schema.md promises.
const HungToolBound = 5 * time.Minute

// AnalystTool is the path of a program analysts read the database with
// (sqlite3, python3, psql, node), or MissingAnalystTool when it is not
// installed; install says how to install it.
func AnalystTool(tb testing.TB, name, install string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		MissingAnalystTool(tb, name+" is not installed ("+err.Error()+"); "+install)
	}
	return path
}

// AnalystTools is the suite of tests that read the database with the
// analysts' own programs.
var AnalystTools = testgate.Suite{
	Name:    "the analysts' tools tests (sqlite3 shell, Python, SQLite 3.31, psql)",
	Require: "NQUEENS_REQUIRE_ANALYST_TOOLS",
	Enable:  "apt-get install -y sqlite3 python3 postgresql-client nodejs npm && npm ci --prefix store/sqlite/testdata/sqlite-3.31 (README, \"Tests\")",
}

// MissingAnalystTool skips the test, saying why (msg); with
// NQUEENS_REQUIRE_ANALYST_TOOLS=1, as .ci/run sets it, it fails it.
func MissingAnalystTool(tb testing.TB, msg string) {
	tb.Helper()
	AnalystTools.Missing(tb, msg)
}

// AnalystData is the database of real size named by the environment
// variable env, and ExampleBound; or, when env is unset, "" (the test makes
// a small one of its own) and a bound that only stops a hung tool.
func AnalystData(env string) (data string, bound time.Duration) {
	if data = os.Getenv(env); data != "" {
		return data, ExampleBound
	}
	return "", HungToolBound
}

// RunTool runs a tool with its standard input, stopped after bound, and
// returns what it wrote on its standard output and error. A tool stopped
// by the bound gives an error that says so.
func RunTool(ctx context.Context, bound time.Duration, stdin string, env []string, name string, args ...string) (stdout, stderr string, took time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	took = time.Since(start)
	if ctx.Err() != nil {
		err = errors.Join(errors.New("did not answer within "+bound.String()), err)
	}
	return out.String(), errOut.String(), took, err
}
