package storetest

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SchemaExamples returns the SQL of every fenced block in docs/schema.md
// whose info string is "sql" followed by tag (e.g. "```sql postgres"), in
// order. It fails the test when the page has none: a renamed tag must not
// silently test nothing.
func SchemaExamples(tb testing.TB, tag string) []string {
	tb.Helper()
	path := filepath.Join(moduleRoot(tb), "docs", "schema.md")
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []string
	var block []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBlock && strings.TrimSpace(line) == "```":
			out = append(out, strings.Join(block, "\n"))
			inBlock, block = false, nil
		case inBlock:
			block = append(block, line)
		case strings.HasPrefix(line, "```"):
			fields := strings.Fields(strings.TrimPrefix(line, "```"))
			inBlock = len(fields) > 1 && fields[0] == "sql" && slices.Contains(fields[1:], tag)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s has no ```sql %s block", path, tag)
	}
	return out
}

// moduleRoot is the directory of go.mod above the working directory.
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}
