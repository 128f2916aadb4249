package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite docs/SETTINGS.md from the settings tables")

const settingsReferencePath = "../../docs/SETTINGS.md"

// TestSettingsReference: docs/SETTINGS.md is what the commands' settings
// tables make (-update rewrites it), whatever the machine: a default that
// depends on it (the number of cores) is said in words.
func TestSettingsReference(t *testing.T) {
	want := settingsReference()
	// Not parallel: the other tests wait while GOMAXPROCS is changed.
	procs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(procs + 3)
	other := settingsReference()
	runtime.GOMAXPROCS(procs)
	if other != want {
		t.Errorf("the settings reference changes with the number of cores: give the defaults that follow it in words (setting.dflt):\n%s", firstDifference(want, other))
	}
	if *update {
		if err := os.WriteFile(settingsReferencePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(settingsReferencePath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/SETTINGS.md is not what the settings tables make; run go test ./cmd/nqueens -run TestSettingsReference -update\n%s", firstDifference(want, string(got)))
	}
}

// firstDifference shows the first line where a and b differ.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, x, y)
		}
	}
	return ""
}

// settingsReference is docs/SETTINGS.md: every command's settings table.
func settingsReference() string {
	var b strings.Builder
	b.WriteString(`# Settings

<!-- Generated from the settings tables in cmd/nqueens: do not edit. After changing a table, run
go test ./cmd/nqueens -run TestSettingsReference -update -->

Every setting of ` + "`nqueens`" + ` is a flag. Most have an environment twin, which
sets its default; a flag given on the command line wins. A flag has the
same twin in every command that takes it. A bad value, given either way,
stops the command before it starts, with exit code 2 and a message that
names the setting, e.g. ` + "`NQUEENS_LOG_LEVEL=\"loud\": must be one of debug, info, warn, error`" + `
or ` + "`--max-page-size (NQUEENS_MAX_PAGE_SIZE) must be at least 1, got 0`" + `.
` + "`nqueens COMMAND --help`" + ` shows the same as this page.

Besides these, ` + "`serve`" + ` reads the Go runtime's ` + "`GOMEMLIMIT`" + ` (the memory budget
when ` + "`--memory-limit`" + ` is not given) and ` + "`GOGC`" + `, and ` + "`precompute`" + ` reads ` + "`USER`" + `
(who asks, when ` + "`--requested-by`" + ` is not given).
`)
	for _, cmd := range commands {
		t := newSettings(cmd.name, cmd.settings())
		fmt.Fprintf(&b, "\n## %s\n\n`nqueens %s %s`: %s.\n", cmd.name, cmd.name, cmd.synopsis, cmd.summary)
		if len(t.lines) == 0 {
			continue
		}
		b.WriteString("\n| flag | environment | default | what |\n| --- | --- | --- | --- |\n")
		for i, s := range t.lines {
			arg, text := flag.UnquoteUsage(t.fs.Lookup(s.flag))
			if arg != "" {
				arg = " " + arg
			}
			env := "—"
			if s.envName() != "" {
				env = "`" + s.envName() + "`"
			}
			var dflt string
			switch v := t.values[i]; {
			case s.dflt != "":
				dflt = s.dflt
			case v == "":
				dflt = "none"
			default:
				dflt = "`" + v + "`"
			}
			if s.follows != "" {
				dflt += ", " + s.follows
			}
			fmt.Fprintf(&b, "| `--%s%s` | %s | %s | %s |\n", s.flag, arg, env, markdownCell(dflt), markdownCell(text))
		}
	}
	return b.String()
}

// markdownCell is text for a cell of a Markdown table: on one line, with
// its bars escaped and its <row> not taken for a tag.
func markdownCell(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	return strings.NewReplacer("|", `\|`, "<", "&lt;").Replace(text)
}

// TestSettingsTables: in each command's table a flag and a variable are
// there once; across the commands a flag has one twin and a variable one
// flag; a default that follows others says how, and does it.
func TestSettingsTables(t *testing.T) {
	t.Parallel()
	envOf, flagOf := map[string]string{}, map[string]string{}
	for _, cmd := range commands {
		flags, envs := map[string]bool{}, map[string]bool{}
		for _, s := range cmd.settings() {
			env := s.envName()
			if flags[s.flag] || (env != "" && envs[env]) {
				t.Errorf("%s: --%s or %s twice", cmd.name, s.flag, env)
			}
			flags[s.flag], envs[env] = true, env != ""
			if (s.follows == "") != (s.follow == nil) {
				t.Errorf("%s --%s: follows %q and follow %v: say how the default follows others, and do it", cmd.name, s.flag, s.follows, s.follow != nil)
			}
			if s.help == "" || strings.HasSuffix(s.help, ".") {
				t.Errorf("%s --%s: help %q: say what it does, with no full stop (the default follows it)", cmd.name, s.flag, s.help)
			}
			if env == "" {
				continue
			}
			if e, ok := envOf[s.flag]; ok && e != env {
				t.Errorf("--%s is %s in %s and %s elsewhere", s.flag, env, cmd.name, e)
			}
			if f, ok := flagOf[env]; ok && f != s.flag {
				t.Errorf("%s is --%s in %s and --%s elsewhere", env, s.flag, cmd.name, f)
			}
			envOf[s.flag], flagOf[env] = env, s.flag
		}
	}
}

// TestFieldPath: a setting's field is named as a *configcheck.Error names
// it, found from the pointer, through a flag.Value over it, in nested
// structs and at a struct's first field.
func TestFieldPath(t *testing.T) {
	t.Parallel()
	type inner struct {
		A int
		B time.Duration
	}
	var config struct {
		hidden bool
		Inner  inner
		Bytes  int64
		List   []string
	}
	var outside int
	for _, tc := range []struct {
		into any
		want string
	}{
		{&config.Inner.A, "Inner.A"},
		{&config.Inner.B, "Inner.B"},
		{byteCount{&config.Bytes}, "Bytes"},
		{commaList{&config.List}, "List"},
		{&config.Inner, "Inner"},
		{&config.hidden, "hidden"},
		{&outside, ""},
	} {
		if got, _ := fieldPath(&config, tc.into); got != tc.want {
			t.Errorf("fieldPath(%T) = %q, want %q", tc.into, got, tc.want)
		}
	}
}
