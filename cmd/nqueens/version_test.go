package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/buildinfo"
)

// TestVersion: `nqueens version` says what `go version -m` reads from the
// real binary, as key/value lines and as JSON.
func TestVersion(t *testing.T) {
	t.Parallel()
	bin := realBinary(t)
	version := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"version"}, args...)...).Output()
		if err != nil {
			t.Fatalf("nqueens version %v: %v", args, err)
		}
		return string(out)
	}
	kv := keyValues(t, version())
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"version": "", "revision": buildinfo.Unknown, "modified": "false", "go": runtime.Version()}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			want["version"] = f[2]
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs."):
			k, v, _ := strings.Cut(f[1], "=")
			want[strings.TrimPrefix(k, "vcs.")] = v
		}
	}
	for _, k := range []string{"version", "revision", "time", "modified", "go"} {
		if kv[k] != want[k] {
			t.Errorf("version: %s %q; go version -m says %q", k, kv[k], want[k])
		}
	}
	var info buildinfo.Info
	if err := json.Unmarshal([]byte(version("--json")), &info); err != nil ||
		info.Version != kv["version"] || info.Revision != kv["revision"] || info.GoVersion != kv["go"] {
		t.Errorf("version --json: %+v, %v; want the fields of %v", info, err, kv)
	}
	if r := runCLI(t, "version", "extra"); r.code != exitUsage || !strings.Contains(r.stderr, "version takes no arguments") {
		t.Errorf("version extra: exit %d, %q", r.code, r.stderr)
	}
}

// TestVersionLinked: a build without VCS information (the Docker build
// leaves .git out) takes its revision and version from the linker, as the
// Dockerfile passes them.
func TestVersionLinked(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "nqueens")
	const pkg = "github.com/nqueens/nqueens/internal/buildinfo"
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin,
		"-ldflags", "-X "+pkg+".version=v9.8.7 -X "+pkg+".revision=0123abcd", ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if kv := keyValues(t, string(out)); kv["version"] != "v9.8.7" || kv["revision"] != "0123abcd" || kv["go"] != runtime.Version() {
		t.Errorf("version of a build given them by the linker: %v", kv)
	}
}
