package memlimit_test

import (
	"errors"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	automemlimit "github.com/KimMachineGun/automemlimit/memlimit"

	"github.com/nqueens/nqueens/internal/memlimit"
)

const mib = 1 << 20

func env(kv ...string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == key {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

func cgroup(limit uint64, err error) func() (uint64, error) {
	return func() (uint64, error) { return limit, err }
}

// TestDecide: the setting wins, then GOMEMLIMIT, then the cgroup's limit,
// then the default; a cgroup without a limit (or no cgroup) is no limit,
// a cgroup that cannot be read is reported and the default used; GOGC
// from the environment wins over the default.
func TestDecide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		in         memlimit.Inputs
		bytes      int64
		source     memlimit.Source
		gogc       int
		gogcSource string
		problem    string
	}{
		{"setting over everything", memlimit.Inputs{Setting: 256 * mib, LookupEnv: env("GOMEMLIMIT", "1GiB"), Cgroup: cgroup(2<<30, nil)},
			256 * mib, memlimit.FromSetting, memlimit.DefaultGOGC, "default", ""},
		{"GOMEMLIMIT over the cgroup", memlimit.Inputs{LookupEnv: env("GOMEMLIMIT", "1GiB"), Cgroup: cgroup(2<<30, nil)},
			1 << 30, memlimit.FromGOMEMLIMIT, memlimit.DefaultGOGC, "default", ""},
		{"GOMEMLIMIT in bytes, small", memlimit.Inputs{LookupEnv: env("GOMEMLIMIT", "134217728")},
			128 * mib, memlimit.FromGOMEMLIMIT, memlimit.DefaultGOGC, "default", ""},
		{"GOMEMLIMIT off is no GOMEMLIMIT", memlimit.Inputs{LookupEnv: env("GOMEMLIMIT", "off"), Cgroup: cgroup(768*mib, nil), Default: 512 * mib},
			768 * mib, memlimit.FromCgroup, memlimit.DefaultGOGC, "default", ""},
		{"the cgroup's limit", memlimit.Inputs{Cgroup: cgroup(768*mib, nil), Default: 512 * mib},
			768 * mib, memlimit.FromCgroup, memlimit.DefaultGOGC, "default", ""},
		{"a cgroup without a limit", memlimit.Inputs{Cgroup: cgroup(0, automemlimit.ErrNoLimit), Default: 512 * mib},
			512 * mib, memlimit.FromDefault, memlimit.DefaultGOGC, "default", ""},
		{"no cgroup", memlimit.Inputs{Cgroup: cgroup(0, automemlimit.ErrNoCgroup), Default: 512 * mib},
			512 * mib, memlimit.FromDefault, memlimit.DefaultGOGC, "default", ""},
		{"cgroups not supported", memlimit.Inputs{Cgroup: cgroup(0, automemlimit.ErrCgroupsNotSupported), Default: 512 * mib},
			512 * mib, memlimit.FromDefault, memlimit.DefaultGOGC, "default", ""},
		{"a cgroup that cannot be read", memlimit.Inputs{Cgroup: cgroup(0, errors.New("failed to parse memory.max value")), Default: 512 * mib},
			512 * mib, memlimit.FromDefault, memlimit.DefaultGOGC, "default", "failed to parse memory.max value"},
		{"nothing", memlimit.Inputs{Default: 512 * mib},
			512 * mib, memlimit.FromDefault, memlimit.DefaultGOGC, "default", ""},
		{"GOGC", memlimit.Inputs{LookupEnv: env("GOGC", "150"), Default: 512 * mib},
			512 * mib, memlimit.FromDefault, 150, "GOGC", ""},
		{"GOGC off", memlimit.Inputs{LookupEnv: env("GOGC", "off"), Default: 512 * mib},
			512 * mib, memlimit.FromDefault, -1, "GOGC", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := memlimit.Decide(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if b.Bytes != c.bytes || b.Source != c.source || b.GOGC != c.gogc || b.GOGCSource != c.gogcSource || b.CgroupProblem != c.problem {
				t.Errorf("got %+v, want %d bytes from %s, GOGC %d from %s, problem %q", b, c.bytes, c.source, c.gogc, c.gogcSource, c.problem)
			}
			want := c.bytes / 100 * memlimit.SoftLimitPercent
			if c.bytes < 400*mib {
				want = c.bytes - 40*mib // a tenth would leave less than 40 MiB outside the runtime
			}
			if b.SoftLimit != want {
				t.Errorf("soft limit %d, want %d", b.SoftLimit, want)
			}
		})
	}
}

// TestDecideRefuses: a value that cannot be read, or a budget too small
// to serve within, is refused naming where it came from.
func TestDecideRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   memlimit.Inputs
		want string
	}{
		{"GOMEMLIMIT not a size", memlimit.Inputs{LookupEnv: env("GOMEMLIMIT", "lots")}, `GOMEMLIMIT="lots": must be a whole number of bytes`},
		{"GOMEMLIMIT in a unit Go does not read", memlimit.Inputs{LookupEnv: env("GOMEMLIMIT", "1GB")}, `GOMEMLIMIT="1GB": must be`},
		{"GOGC not a number", memlimit.Inputs{LookupEnv: env("GOGC", "fast"), Default: 512 * mib}, `GOGC="fast": must be off or a percentage`},
		{"GOGC negative", memlimit.Inputs{LookupEnv: env("GOGC", "-5"), Default: 512 * mib}, `GOGC="-5": must be off`},
		{"setting too small", memlimit.Inputs{Setting: 16 * mib, SettingName: "--memory-limit (NQUEENS_MEMORY_LIMIT)"},
			"the memory budget from --memory-limit (NQUEENS_MEMORY_LIMIT) is 16MiB, less than the 64MiB the server needs idle"},
		{"GOMEMLIMIT too small", memlimit.Inputs{LookupEnv: env("GOMEMLIMIT", "32MiB")}, "the memory budget from GOMEMLIMIT is 32MiB"},
		{"cgroup too small", memlimit.Inputs{Cgroup: cgroup(20*mib, nil)}, "the memory budget from the container's cgroup limit is 20MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := memlimit.Decide(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %+v, %v; want an error with %q", b, err, c.want)
			}
		})
	}
}

// TestParseBytes reads what GOMEMLIMIT takes, and refuses the rest.
func TestParseBytes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"536870912": 512 * mib, "512MiB": 512 * mib, "2 GiB": 2 << 30, "64KiB": 64 << 10,
		"1TiB": 1 << 40, "100B": 100, " 7 ": 7} {
		if got, err := memlimit.ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "1.5GiB", "-1", "1GB", "1 gib", "ten", "9999999999TiB"} {
		if got, err := memlimit.ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
	for n, want := range map[int64]string{512 * mib: "512MiB", 1536 << 10: "1536KiB", 1000: "1000", 3 << 30: "3GiB"} {
		if got := memlimit.Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{512 * mib: "512MiB", 483183820: "460.8MiB", 1536 << 10: "1.5MiB", 1000: "1000B", 3 << 30: "3GiB"} {
		if got := memlimit.Approx(n); got != want {
			t.Errorf("Approx(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestApply sets the runtime's soft limit and GOGC, and restore puts back
// what was there. Not parallel: it changes the process's runtime.
func TestApply(t *testing.T) {
	before, beforeGC := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(beforeGC)
	b, err := memlimit.Decide(memlimit.Inputs{Setting: 300 * mib, LookupEnv: env("GOGC", "250")})
	if err != nil {
		t.Fatal(err)
	}
	restore := b.Apply()
	limit, gc := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(gc)
	restore()
	if limit != 260*mib || gc != 250 {
		t.Errorf("applied a soft limit of %d and GOGC %d, want %d (300 MiB less 40) and 250", limit, gc, 260*mib)
	}
	if limit, gc := debug.SetMemoryLimit(-1), debug.SetGCPercent(beforeGC); limit != before || gc != beforeGC {
		t.Errorf("after restore: soft limit %d, GOGC %d; before %d, %d", limit, gc, before, beforeGC)
	}
}

// TestThisMachinesCgroup reads the real cgroup of the test's process
// through the library: whatever it says, Decide takes it (a limit, or
// none and the default), never a problem.
func TestThisMachinesCgroup(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/cgroup"); err != nil {
		t.Skip("no /proc/self/cgroup")
	}
	b, err := memlimit.Decide(memlimit.Inputs{Cgroup: automemlimit.FromCgroup, Default: 512 * mib})
	if err != nil {
		t.Fatal(err)
	}
	limit, cerr := automemlimit.FromCgroup()
	t.Logf("this machine's cgroup: %d, %v; budget %s from %s", limit, cerr, memlimit.Format(b.Bytes), b.Source)
	if b.CgroupProblem != "" {
		t.Errorf("the cgroup could not be read: %s", b.CgroupProblem)
	}
	if (b.Source == memlimit.FromCgroup) != (cerr == nil) {
		t.Errorf("source %s while the library says %d, %v", b.Source, limit, cerr)
	}
}
