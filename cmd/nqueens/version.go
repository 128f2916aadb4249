package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nqueens/nqueens/internal/buildinfo"
)

const versionSynopsis = "[--json]"

// runVersion prints which build this is, one "key value" line per field:
//
//	version v0.0.0-20251201220100-1c52621abcde
//	revision 1c52621abcdef0123456789abcdef0123456789a
//	time 2025-12-01T22:01:00Z
//	modified false
//	go go1.26.0
//
// time is left out when unknown. --json prints the same fields as one
// JSON object.
func runVersion(_ context.Context, args []string, c console) error {
	fs := newFlagSet("version")
	asJSON := fs.Bool("json", false, "print one JSON object instead of key/value lines")
	pos, err := parseArgs(fs, versionSynopsis, args, c.stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments, got %s", strings.Join(pos, " "))
	}
	info := buildinfo.Read()
	if *asJSON {
		return json.NewEncoder(c.stdout).Encode(info)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "version %s\nrevision %s\n", info.Version, info.Revision)
	if info.Time != "" {
		fmt.Fprintf(&b, "time %s\n", info.Time)
	}
	fmt.Fprintf(&b, "modified %t\ngo %s\n", info.Modified, info.GoVersion)
	_, err = io.WriteString(c.stdout, b.String())
	return err
}
