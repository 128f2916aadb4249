// Package buildinfo says which build of nqueens is running: the module
// version and the commit the go command stamped into the binary, and the
// Go version that built it. `nqueens version` prints it and /metrics
// carries it as nqueens_build_info.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info describes one build.
type Info struct {
	// Version is the main module's version: a tag or pseudo-version for a
	// build from a clone, "(devel)" when the go command knew none.
	Version string `json:"version"`
	// Revision is the commit built, Unknown when the build had no VCS
	// information (a source tree without .git, as in the Docker build,
	// unless the linker was given one).
	Revision string `json:"revision"`
	// Time is the commit's time (RFC 3339), "" when unknown.
	Time string `json:"time,omitempty"`
	// Modified says the work tree had changes not committed.
	Modified bool `json:"modified"`
	// GoVersion is the Go release that built the binary.
	GoVersion string `json:"go"`
}

// Unknown stands for a version or revision the build did not record.
const Unknown = "unknown"

// Where the go command stamps no VCS information (the Docker build leaves
// .git out of its context), the linker can set these instead:
//
//	go build -ldflags "-X github.com/nqueens/nqueens/internal/buildinfo.revision=$(git rev-parse HEAD)"
var (
	version  string
	revision string
)

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return From(bi, version, revision)
}

// From reads build information bi (nil when the binary has none); the
// version and revision given, when not empty, win over bi's, since
// whoever set them at link time meant them.
func From(bi *debug.BuildInfo, linkedVersion, linkedRevision string) Info {
	info := Info{Version: Unknown, Revision: Unknown, GoVersion: runtime.Version()}
	if bi != nil {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if linkedVersion != "" {
		info.Version = linkedVersion
	}
	if linkedRevision != "" && linkedRevision != info.Revision {
		// The time and the work tree's state were another commit's.
		info.Revision, info.Time, info.Modified = linkedRevision, "", false
	}
	return info
}
