// Package docs holds the project's documentation; its test checks that
// the repository stands on its own.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// outside are the ways a file has pointed outside the repository: a design
// file that lives beside the checkout, the folder it lives in, and the
// machine's work folder. Written in pieces, so that this file does not
// match them.
var outside = []string{
	"DES" + "IGN.md",
	".." + "/sha" + "red",
	"/" + "work/",
}

// TestNothingPointsOutside: no file of the repository (code, comments,
// tests, docs) cites or needs anything outside it.
func TestNothingPointsOutside(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	files := repositoryFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("found only %d files under %s: not the repository", len(files), root)
	}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue // binary: an image, a font
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, o := range outside {
				if strings.Contains(line, o) {
					t.Errorf("%s:%d points outside the repository (%q): %s", name, i+1, o, strings.TrimSpace(line))
				}
			}
		}
	}
}

// TestOutsideIsFound: the check finds each pattern in a line that has it.
func TestOutsideIsFound(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"see the DES" + "IGN.md", "cp .." + "/sha" + "red/x .", "cd /" + "work/main"} {
		found := false
		for _, o := range outside {
			found = found || strings.Contains(line, o)
		}
		if !found {
			t.Errorf("%q is not caught", line)
		}
	}
}

// repositoryFiles lists the files git tracks under root, or, without git
// (a tarball), every file but those of .git and of npm's node_modules.
func repositoryFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil { // deleted, not yet committed
					files = append(files, f)
				}
			}
		}
		return files
	}
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve: every relative link of the markdown files names a file
// of the repository and, with #anchor, one of its headings.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	for _, name := range repositoryFiles(t, root) {
		if !strings.HasSuffix(name, ".md") || strings.Contains(name, "testdata/") || strings.Contains(name, "vendor/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(root, filepath.Dir(name), file)
			if file == "" {
				path = filepath.Join(root, name)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: link %q: %v", name, target, err)
				continue
			}
			if anchor != "" && !slices.Contains(headingAnchors(string(body)), anchor) {
				t.Errorf("%s: link %q: %s has no heading #%s", name, target, file, anchor)
			}
		}
	}
}

// headingAnchors are the anchors GitHub gives a markdown file's headings:
// lower case, spaces as hyphens, punctuation dropped.
func headingAnchors(md string) []string {
	var anchors []string
	inFence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range text {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors = append(anchors, b.String())
	}
	return anchors
}

// TestHeadingAnchors: anchors are made as GitHub makes them.
func TestHeadingAnchors(t *testing.T) {
	t.Parallel()
	got := headingAnchors("# Docker and Compose\n```\n# not a heading\n```\n## The first start of `serve`, as of 2026-11-30\n")
	want := []string{"docker-and-compose", "the-first-start-of-serve-as-of-2026-11-30"}
	if !slices.Equal(got, want) {
		t.Errorf("headingAnchors = %q, want %q", got, want)
	}
}
