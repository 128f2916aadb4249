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

// versionOptions are what version's settings set.
type versionOptions struct{ json bool }

func newVersionOptions() *versionOptions { return &versionOptions{} }

// settings is version's settings table.
func (o *versionOptions) settings() []setting {
	return []setting{{flag: "json", env: flagOnly, into: &o.json, help: "print one JSON object instead of key/value lines"}}
}

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
	o := newVersionOptions()
	pos, err := newSettings("version", o.settings()).parse(args, c, versionSynopsis)
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
	if o.json {
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
