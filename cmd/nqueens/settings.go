package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/memlimit"
)

// setting is one line of a command's settings table: a flag, its
// environment twin, the variable it sets, its default and its help. The
// flag set, the environment twins, --help, the names in messages about bad
// values and docs/SETTINGS.md all come from the tables
// (TestSettingsReference), so a new setting is one line and its field.
type setting struct {
	// flag is the flag's name: "max-page-size".
	flag string
	// env is its environment twin: "" for NQUEENS_ and the flag in upper
	// snake case (NQUEENS_MAX_PAGE_SIZE), a name for a standard variable
	// (DATABASE_URL) or one the flag alone would not say
	// (NQUEENS_PRECOMPUTE_WAIT), flagOnly for none.
	env string
	// into is where the value lands: a pointer to the field of the
	// command's configuration (*int, *int64, *float64, *bool, *string,
	// *time.Duration, *[]string as a comma-separated list) or a
	// flag.Value over one (byteCount). What the field holds when the
	// table is made is the default: the packages' DefaultConfig and
	// DefaultOptions.
	into any
	// help says what it does; a `NAME` in it names the flag's argument.
	help string
	// dflt is the default in words when the field's value does not say it:
	// it depends on the machine ("one per core") or is found after parsing
	// ("$USER").
	dflt string
	// follows says how the default follows other settings ("at most
	// --max-connections"), and follow sets it when neither the flag nor
	// its twin gives the setting (settingsTable.follow).
	follows string
	follow  func()
}

// flagOnly is the env of a setting without an environment twin.
const flagOnly = "-"

// envName is the environment twin of s, "" for none.
func (s setting) envName() string {
	switch s.env {
	case flagOnly:
		return ""
	case "":
		return "NQUEENS_" + strings.ToUpper(strings.ReplaceAll(s.flag, "-", "_"))
	}
	return s.env
}

// name names s in messages: "--max-page-size (NQUEENS_MAX_PAGE_SIZE)".
func (s setting) name() string {
	if env := s.envName(); env != "" {
		return "--" + s.flag + " (" + env + ")"
	}
	return "--" + s.flag
}

// settingsTable is a command's settings and the flag set made of them.
type settingsTable struct {
	lines []setting
	// values are the settings' default values as text, line by line,
	// read before anything is parsed: "10s", "1h", "512MiB",
	// "1048576 (1MiB)".
	values []string
	fs     *flag.FlagSet
}

// newSettings makes the flag set of the command's settings table.
func newSettings(command string, lines []setting) *settingsTable {
	fs := flag.NewFlagSet("nqueens "+command, flag.ContinueOnError)
	// parse turns the flag package's errors into one-line usage errors
	// and prints the help itself.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	t := &settingsTable{lines: lines, fs: fs}
	for _, s := range lines {
		switch p := s.into.(type) {
		case *int:
			fs.IntVar(p, s.flag, *p, s.help)
		case *int64:
			fs.Int64Var(p, s.flag, *p, s.help)
		case *float64:
			fs.Float64Var(p, s.flag, *p, s.help)
		case *bool:
			fs.BoolVar(p, s.flag, *p, s.help)
		case *string:
			fs.StringVar(p, s.flag, *p, s.help)
		case *time.Duration:
			fs.DurationVar(p, s.flag, *p, s.help)
		case *[]string:
			fs.Var(commaList{p}, s.flag, s.help)
		case flag.Value:
			fs.Var(p, s.flag, s.help)
		default:
			panic(fmt.Sprintf("setting --%s: cannot set a %T", s.flag, s.into))
		}
		v := fs.Lookup(s.flag).DefValue
		switch p := s.into.(type) {
		case *time.Duration:
			v = shortDuration(*p)
		case *int64:
			v = withUnit(s.flag, v, *p)
		case *int:
			v = withUnit(s.flag, v, int64(*p))
		}
		t.values = append(t.values, v)
	}
	return t
}

// defaultText is the default of line i as --help says it: in words, or
// the value and how it follows others ("64, at most --max-connections").
func (t *settingsTable) defaultText(i int) string {
	s := t.lines[i]
	switch {
	case s.dflt != "":
		return s.dflt
	case s.follows != "":
		return t.values[i] + ", " + s.follows
	}
	return t.values[i]
}

// withUnit is a count of bytes v (n) as the flag takes it, in digits, and
// in the unit a reader takes in: "1048576 (1MiB)". Other numbers stay as
// they are.
func withUnit(flag, v string, n int64) string {
	if !strings.HasSuffix(flag, "-bytes") || n < 1<<10 {
		return v
	}
	return v + " (" + memlimit.Format(n) + ")"
}

// shortDuration writes d without zero minutes and seconds: 1h, not
// 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// line is the line of the table for the flag name; it panics for a flag
// the table does not have, which is a mistake in the command.
func (t *settingsTable) line(name string) setting {
	for _, s := range t.lines {
		if s.flag == name {
			return s
		}
	}
	panic("no setting --" + name)
}

// name names the setting of the flag in messages: "--max-page-size
// (NQUEENS_MAX_PAGE_SIZE)", or "--where" when it has no twin.
func (t *settingsTable) name(flag string) string { return t.line(flag).name() }

// isSet reports whether the flag name was given, on the command line or
// by its environment twin.
func (t *settingsTable) isSet(name string) bool {
	t.line(name)
	set := false
	t.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// follow sets the defaults that follow other settings, of the settings
// neither given on the command line nor by their twin, in the table's
// order (a share follows its total after the total has followed its
// own). The command calls it once the settings they follow are known.
func (t *settingsTable) follow() {
	for _, s := range t.lines {
		if s.follow != nil && !t.isSet(s.flag) {
			s.follow()
		}
	}
}

// refusal returns a configuration's refusal of one of its fields (a
// *configcheck.Error from config.Check(), config a pointer to the
// configuration the table's lines point into) as a usage error that names
// the setting of that field, and any other error as it is.
func (t *settingsTable) refusal(config any, err error) error {
	var e *configcheck.Error
	if !errors.As(err, &e) {
		return err
	}
	for _, s := range t.lines {
		if field, ok := fieldPath(config, s.into); ok && field == e.Field {
			return usagef("%s %s", s.name(), e.Problem)
		}
	}
	return usagef("%v", err)
}

// fieldPath is the name of the field of *config that into points at (or
// whose flag.Value it is), as a *configcheck.Error names it:
// "Graph.MaxPageSize". ok is false when into points outside *config.
func fieldPath(config, into any) (path string, ok bool) {
	if v, isValue := into.(interface{ field() any }); isValue {
		into = v.field()
	}
	p := reflect.ValueOf(into)
	if p.Kind() != reflect.Pointer {
		return "", false
	}
	return findField(reflect.ValueOf(config).Elem(), p.Pointer(), p.Type().Elem(), "")
}

// findField finds the field of the struct v at address addr, of type typ
// (a struct's first field shares its address), in v or a struct in it.
func findField(v reflect.Value, addr uintptr, typ reflect.Type, prefix string) (string, bool) {
	if v.Kind() != reflect.Struct {
		return "", false
	}
	for i := range v.NumField() {
		f := v.Field(i)
		name := prefix + v.Type().Field(i).Name
		if f.Addr().Pointer() == addr && f.Type() == typ {
			return name, true
		}
		if path, ok := findField(f, addr, typ, name+"."); ok {
			return path, true
		}
	}
	return "", false
}

// parse sets the settings from their environment twins (lookupEnv), then
// from the command line args, and returns the positional arguments. Flags
// and positional arguments come in any order ("count 12 --workers 2" and
// "count --workers 2 12"), which the flag package alone does not take: it
// stops at the first positional argument. Everything after "--" is
// positional, and so is a negative number standing where a flag could be,
// so that "count -3" says N is out of range. A bad value of a variable is
// a usage error that names it. On --help it prints the command's help
// (usage: its synopsis and what follows it) to stdout and returns errHelp.
func (t *settingsTable) parse(args []string, c console, usage string) ([]string, error) {
	for _, s := range t.lines {
		env := s.envName()
		if env == "" {
			continue
		}
		if v, ok := c.lookupEnv(env); ok {
			if err := t.fs.Set(s.flag, v); err != nil {
				return nil, usagef("%s=%q: %v", env, v, err)
			}
		}
	}
	var pos []string
	for i := 0; i < len(args); {
		a := args[i]
		switch {
		case a == "--":
			return append(pos, args[i+1:]...), nil
		case a == "-" || !strings.HasPrefix(a, "-") || negativeNumber.MatchString(a):
			pos = append(pos, a)
			i++
			continue
		}
		k := 1
		if t.takesValue(a) {
			k = 2
		}
		err := t.fs.Parse(args[i:min(i+k, len(args))])
		if errors.Is(err, flag.ErrHelp) {
			t.printHelp(c.stdout, usage)
			return nil, errHelp
		}
		if err != nil {
			var names []string
			t.fs.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
			return nil, usagef("%v; flags are %s", err, strings.Join(names, ", "))
		}
		i += k
	}
	return pos, nil
}

var negativeNumber = regexp.MustCompile(`^-[0-9]+$`)

// takesValue reports whether arg is a flag that takes its value from the
// next argument ("--limit 5", not "--limit=5" nor a boolean flag).
func (t *settingsTable) takesValue(arg string) bool {
	name := strings.TrimLeft(arg, "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := t.fs.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

// printHelp writes the command's help: its usage, then each setting in
// the table's order with its default and environment twin.
func (t *settingsTable) printHelp(w io.Writer, usage string) {
	fmt.Fprintf(w, "Usage: %s %s\n\nFlags:\n", t.fs.Name(), usage)
	for i, s := range t.lines {
		arg, text := flag.UnquoteUsage(t.fs.Lookup(s.flag))
		if arg != "" {
			arg = " " + arg
		}
		var notes []string
		// An empty text or false goes without saying.
		if d := t.defaultText(i); d != "" && d != "false" {
			notes = append(notes, "default "+d)
		}
		if env := s.envName(); env != "" {
			notes = append(notes, "$"+env)
		}
		if len(notes) > 0 {
			text += " (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(w, "  --%s%s\n        %s\n", s.flag, arg, text)
	}
}

// commaList is a flag.Value setting a list from comma-separated items, spaces
// around them and empty ones left out: "https://a.example, https://b.example".
type commaList struct{ p *[]string }

func (l commaList) Set(s string) error {
	var items []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	*l.p = items
	return nil
}

func (l commaList) String() string {
	if l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

func (l commaList) field() any { return l.p }

// prefixList is a flag.Value setting a list of networks from
// comma-separated addresses (one address each) and CIDR networks:
// "172.30.57.10, 10.0.0.0/8".
type prefixList struct{ p *[]netip.Prefix }

func (l prefixList) Set(s string) error {
	var prefixes []netip.Prefix
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		if addr, err := netip.ParseAddr(item); err == nil {
			prefixes = append(prefixes, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			return fmt.Errorf("%q is not an address or a network: want e.g. 172.30.57.10, 10.0.0.0/8 or fd00::/8", item)
		}
		prefixes = append(prefixes, p.Masked())
	}
	*l.p = prefixes
	return nil
}

func (l prefixList) String() string {
	if l.p == nil {
		return ""
	}
	items := make([]string, len(*l.p))
	for i, p := range *l.p {
		items[i] = p.String()
	}
	return strings.Join(items, ",")
}

func (l prefixList) field() any { return l.p }

// byteCount is a flag.Value setting a byte count as GOMEMLIMIT writes one:
// whole bytes or with a suffix KiB, MiB, GiB or TiB (536870912, 512MiB).
type byteCount struct{ p *int64 }

func (b byteCount) Set(s string) error {
	n, err := memlimit.ParseBytes(s)
	if err != nil {
		return err
	}
	*b.p = n
	return nil
}

func (b byteCount) String() string {
	if b.p == nil || *b.p == 0 {
		return "0"
	}
	return memlimit.Format(*b.p)
}

func (b byteCount) field() any { return b.p }
