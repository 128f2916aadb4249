package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliReferencePath is the command-line reference: prose written by hand,
// and after each command's section the command's --help, which
// TestCLIReference writes.
var cliReferencePath = filepath.Join("..", "..", "docs", "CLI.md")

// helpMarker is the comment before the text block that holds what args
// print, e.g. "nqueens count --help".
func helpMarker(args string) string {
	return "<!-- generated: nqueens " + args + " (go test ./cmd/nqueens -run TestCLIReference -update) -->"
}

// TestCLIReference: docs/CLI.md shows, for `nqueens help` and every
// command, exactly what its --help prints (-update rewrites those blocks
// and leaves the prose alone), and leaves out no command.
func TestCLIReference(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(cliReferencePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	want := doc
	helps := []string{"help"}
	for _, c := range commands {
		helps = append(helps, c.name+" --help")
	}
	for _, args := range helps {
		r := runCLI(t, strings.Fields(args)...)
		if r.code != exitOK || r.stderr != "" {
			t.Fatalf("nqueens %s: exit %d, stderr %q", args, r.code, r.stderr)
		}
		var ok bool
		want, ok = replaceHelp(want, helpMarker(args), r.stdout)
		if !ok {
			t.Errorf("docs/CLI.md has no block for nqueens %s: add the line\n%s\nthen a ```text block, and run go test ./cmd/nqueens -run TestCLIReference -update", args, helpMarker(args))
		}
	}
	if *update && want != doc && !t.Failed() {
		if err := os.WriteFile(cliReferencePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != doc {
		t.Errorf("docs/CLI.md does not show what --help prints; run go test ./cmd/nqueens -run TestCLIReference -update\n%s", firstDifference(want, doc))
	}
}

// replaceHelp puts help into the text block after marker in doc.
func replaceHelp(doc, marker, help string) (string, bool) {
	at := strings.Index(doc, marker+"\n```text\n")
	if at < 0 {
		return doc, false
	}
	start := at + len(marker+"\n```text\n")
	// The closing fence: the first line "```" from start on (the block may be empty).
	end := strings.Index("\n"+doc[start:], "\n```\n")
	if end < 0 {
		return doc, false
	}
	return doc[:start] + strings.TrimRight(help, "\n") + "\n" + doc[start+end:], true
}

// TestReplaceHelp: a block is replaced whole, the prose around it kept.
func TestReplaceHelp(t *testing.T) {
	t.Parallel()
	m := helpMarker("count --help")
	doc := fmt.Sprintf("# count\n\nprose\n\n%s\n```text\nold\nlines\n```\n\nmore prose\n", m)
	got, ok := replaceHelp(doc, m, "Usage: new\n")
	want := fmt.Sprintf("# count\n\nprose\n\n%s\n```text\nUsage: new\n```\n\nmore prose\n", m)
	if !ok || got != want {
		t.Errorf("replaceHelp = %q, %v; want %q", got, ok, want)
	}
	if _, ok := replaceHelp(doc, helpMarker("solve --help"), "x"); ok {
		t.Error("a marker that is not there was replaced")
	}
}
