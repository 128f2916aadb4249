package main

import (
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadmeSettingsTable: each row of the README's settings table names
// a flag of every command its "for" column lists, with the default that
// flag has (as --help shows it, from the packages' DefaultConfig and
// DefaultOptions), so that the table cannot drift from the code.
func TestReadmeSettingsTable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{"s": "serve", "w": "worker", "p": "precompute", "h": "healthcheck", "m": "migrate"}
	helpDefaults := map[string]map[string]string{}
	for _, command := range commands {
		helpDefaults[command] = flagDefaults(ok(t, command, "--help"))
	}
	row := regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| `[A-Z_]+` \\| ([^|]+) \\| ([a-z ]+) \\|")
	rows := row.FindAllStringSubmatch(string(readme), -1)
	if len(rows) < 40 {
		t.Fatalf("found %d rows of the settings table in README.md; has its layout changed?", len(rows))
	}
	for _, r := range rows {
		name, documented := r[1], strings.TrimSpace(r[2])
		for _, letter := range strings.Fields(r[3]) {
			command := commands[letter]
			got, ok := helpDefaults[command][name]
			if !ok {
				t.Errorf("README: --%s is for %s, which has no such flag", name, command)
				continue
			}
			if want := readmeDefault(documented, command); !sameDefault(got, want) {
				t.Errorf("README: --%s of %s defaults to %q (%q), the flag to %q", name, command, want, documented, got)
			}
		}
	}
}

// flagDefaults reads the flags of a command's --help and the default each
// shows ("" for none: a zero, false, or one that follows another flag).
func flagDefaults(help string) map[string]string {
	out := map[string]string{}
	name := ""
	for _, line := range strings.Split(help, "\n") {
		if rest, ok := strings.CutPrefix(line, "  --"); ok {
			name, _, _ = strings.Cut(rest, " ")
			out[name] = ""
			continue
		}
		if name != "" && strings.HasSuffix(line, ")") {
			if i := strings.LastIndex(line, " (default "); i >= 0 {
				out[name] = strings.TrimSuffix(line[i+len(" (default "):], ")")
			}
		}
	}
	return out
}

// readmeDefault is what the README's default column says command shows
// in its help: "`10s`" is 10s, "unset", "none", "false" and zeros show
// none, nor do defaults that follow another setting ("`--request-timeout`
// + `10s`", "from `--addr`"), "the number of cores" is GOMAXPROCS (and
// "half the cores" half of it, at least 1), and
// "`info` (precompute: `warn`)" is warn for precompute.
func readmeDefault(documented, command string) string {
	d := strings.ReplaceAll(documented, "`", "")
	if base, note, ok := strings.Cut(d, " ("); ok {
		d = base
		if cmd, v, ok := strings.Cut(strings.TrimSuffix(note, ")"), ": "); ok && cmd == command {
			d = v
		}
	}
	switch {
	case d == "unset", d == "none", d == "false", d == "0", d == "0s",
		strings.HasPrefix(d, "--"), strings.HasPrefix(d, "from "):
		return ""
	case d == "the number of cores":
		return strconv.Itoa(runtime.GOMAXPROCS(0))
	case d == "half the cores":
		return strconv.Itoa(max(1, runtime.GOMAXPROCS(0)/2))
	}
	return d
}

// sameDefault compares defaults, durations by their value (1h, 1h0m0s).
func sameDefault(a, b string) bool {
	da, errA := time.ParseDuration(a)
	db, errB := time.ParseDuration(b)
	if errA == nil && errB == nil {
		return da == db
	}
	return a == b
}
