package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestLoad runs the load generator briefly against a real server (pages
// of N=8 from the solver): every request answered, none failed.
func TestLoad(t *testing.T) {
	b := apitest.Setup(t)
	var out bytes.Buffer
	err := runLoad(context.Background(), []string{"--url", b.URL, "--n", "8", "--first", "5", "--cursors", "30",
		"--concurrency", "4", "--duration", "500ms", "--warmup", "100ms"}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"errors   0 (0.000%)", "status   200: ", "requests/s", "p99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// envOf is an environment of vars only.
func envOf(vars map[string]string) lookupEnv {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// TestFill stores a board through the precompute engine, as nqueens
// precompute --wait does, in the SQLite file the environment names, and
// leaves a done board alone.
func TestFill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nqueens.db")
	env := envOf(map[string]string{"NQUEENS_SQLITE_PATH": path})
	for _, want := range []string{"N=9 stored: 352 solutions", "N=9 is done already: 352 solutions"} {
		var out bytes.Buffer
		if err := runFill(context.Background(), []string{"9"}, env, &out); err != nil || !strings.Contains(out.String(), want) {
			t.Fatalf("fill 9: %v, %q; want %q", err, out.String(), want)
		}
	}
	st := sqlitetest.Open(t, path)
	b, err := st.Board(context.Background(), 9)
	if err != nil || b.State != store.Done || !b.StoresSolutions || b.Counts.Unique != 46 {
		t.Fatalf("board 9 after fill: %+v, %v", b, err)
	}
	if err := runFill(context.Background(), []string{"17"}, env, &bytes.Buffer{}); err == nil {
		t.Error("fill 17 (beyond what is stored) succeeded")
	}
}
