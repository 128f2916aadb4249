package buildinfo_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/nqueens/nqueens/internal/buildinfo"
)

func TestFrom(t *testing.T) {
	t.Parallel()
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/nqueens/nqueens", Version: "v0.0.0-20251201220100-1c52621abcde+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "CGO_ENABLED", Value: "0"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "1c52621abcdef0123456789abcdef0123456789a"},
			{Key: "vcs.time", Value: "2025-12-01T22:01:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	bare := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/nqueens/nqueens", Version: "(devel)"}}
	for _, tt := range []struct {
		name             string
		bi               *debug.BuildInfo
		version, revised string
		want             buildinfo.Info
	}{
		{"stamped by the go command", stamped, "", "",
			buildinfo.Info{Version: "v0.0.0-20251201220100-1c52621abcde+dirty", Revision: "1c52621abcdef0123456789abcdef0123456789a",
				Time: "2025-12-01T22:01:00Z", Modified: true, GoVersion: "go1.26.0"}},
		{"no VCS information", bare, "", "",
			buildinfo.Info{Version: "(devel)", Revision: buildinfo.Unknown, GoVersion: "go1.26.0"}},
		{"set by the linker", bare, "v1.2.3", "feedface",
			buildinfo.Info{Version: "v1.2.3", Revision: "feedface", GoVersion: "go1.26.0"}},
		{"the linker's revision over another commit's", stamped, "", "feedface",
			buildinfo.Info{Version: "v0.0.0-20251201220100-1c52621abcde+dirty", Revision: "feedface", GoVersion: "go1.26.0"}},
		{"no build information", nil, "", "",
			buildinfo.Info{Version: buildinfo.Unknown, Revision: buildinfo.Unknown, GoVersion: runtime.Version()}},
	} {
		if got := buildinfo.From(tt.bi, tt.version, tt.revised); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestRead reads the test binary's own information: the Go version that
// runs it, and a version and revision that are never empty.
func TestRead(t *testing.T) {
	t.Parallel()
	got := buildinfo.Read()
	if got.GoVersion != runtime.Version() || got.Version == "" || got.Revision == "" {
		t.Errorf("Read() = %+v; want Go %s and a version and revision", got, runtime.Version())
	}
}
