// Package docs holds the project's documentation; its test checks that
// the repository stands on its own.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// outside are the ways a file has pointed outside the repository: a design
// file that lives beside the checkout, the folder it lives in, and the
// machine's work folder. Written in pieces, so that this file does not
// match them.
var outside = []string{
	"DESIGN" + ".md",
	".." + "/shared",
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
	for _, line := range []string{"see shared/DESIGN" + ".md", "cp .." + "/shared/x .", "cd /" + "work/main"} {
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
