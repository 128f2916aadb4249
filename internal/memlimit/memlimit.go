// Package memlimit decides the memory budget a process serves within and
// applies it to the Go runtime: a soft limit (debug.SetMemoryLimit) a
// little below the budget, and the collector's GOGC chosen with that limit
// in mind. The budget is, first found: the operator's setting (serve's
// --memory-limit), GOMEMLIMIT, the container's cgroup limit, or a default.
// What the server lets requests hold in flight is derived from it
// (server.DefaultInflightBytes).
package memlimit

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	automemlimit "github.com/KimMachineGun/automemlimit/memlimit"
)

// Source says where a budget came from.
type Source string

const (
	FromSetting    Source = "setting"    // the operator's setting (--memory-limit)
	FromGOMEMLIMIT Source = "GOMEMLIMIT" // the Go runtime's variable
	FromCgroup     Source = "cgroup"     // the container's memory limit
	FromDefault    Source = "default"    // none of those: Inputs.Default
)

// The Go runtime's soft limit is the budget less what the runtime does not
// manage, which the limit cannot see: the binary's text and data, the
// stacks of threads in system calls, and SQLite's page cache and other
// allocations (modernc SQLite allocates outside the Go heap). Measured
// under a flood of the real binary on SQLite (TestServeWithinMemoryLimit,
// docs/PERFORMANCE.md "Memory budget"): 22 to 24 MiB of resident memory
// beyond what the runtime has mapped, and 4 to 5 MiB more since the binary
// grew by tracing and Parquet (its text resident at idle: 30 MiB, was 26).
// So the runtime gets the budget less a tenth of it, or less outsideGo,
// whichever leaves more room.
const (
	SoftLimitPercent = 90
	outsideGo        = 40 << 20
)

// softLimit is the runtime's soft limit for a budget of b bytes.
func softLimit(b int64) int64 { return min(b/100*SoftLimitPercent, b-outsideGo) }

// DefaultGOGC is the collector's GOGC when the environment does not set
// one. Under the soft limit, a high GOGC costs no memory near the budget
// (the limit makes the collector run sooner whatever GOGC says) and saves
// CPU far from it, where a server's live heap is small and its garbage
// short-lived; docs/PERFORMANCE.md ("GOGC under the memory limit") has the
// measurement that chose it.
const DefaultGOGC = 400

// MinBudget is the smallest budget accepted: the server alone, idle with
// its caches empty, is resident in about 45 MiB (SQLite, of which 24
// outside the Go runtime), so a smaller budget leaves nothing for
// requests.
const MinBudget = 64 << 20

// Inputs are what Decide reads.
type Inputs struct {
	// Setting is the operator's budget in bytes (--memory-limit); 0: not
	// given.
	Setting int64
	// SettingName names the setting in messages, e.g. "--memory-limit
	// (NQUEENS_MEMORY_LIMIT)".
	SettingName string
	// LookupEnv reads GOMEMLIMIT and GOGC: the command's environment,
	// which tests give their own.
	LookupEnv func(key string) (string, bool)
	// Cgroup reads the container's memory limit; automemlimit's
	// FromCgroup in serve. It returns automemlimit.ErrNoLimit (or
	// ErrNoCgroup, ErrCgroupsNotSupported) when there is none. nil: no
	// container.
	Cgroup func() (uint64, error)
	// Default is the budget when nothing else says (server.
	// DefaultMemoryBudget).
	Default int64
}

// Budget is the decided budget and what the runtime is given for it.
type Budget struct {
	// Bytes is the budget, Source where it came from.
	Bytes  int64
	Source Source
	// SoftLimit is the Go runtime's soft memory limit: SoftLimitPercent
	// of Bytes, or Bytes less 40 MiB when that is less (softLimit).
	SoftLimit int64
	// GOGC is the collector's setting, -1 for off, and GOGCSource "GOGC"
	// when the environment set it, "default" when DefaultGOGC.
	GOGC       int
	GOGCSource string
	// CgroupProblem is why the cgroup's limit could not be read when it
	// was looked for and failed other than by having none ("" otherwise):
	// worth a warning, not a refusal to start.
	CgroupProblem string
}

// Decide decides the budget from in: the setting, else GOMEMLIMIT, else
// the cgroup's limit, else the default. A value it cannot read, or a
// budget below MinBudget, is an error that names where it came from.
func Decide(in Inputs) (Budget, error) {
	lookup := in.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	var b Budget
	switch {
	case in.Setting > 0:
		b.Bytes, b.Source = in.Setting, FromSetting
	default:
		if v, ok := lookup("GOMEMLIMIT"); ok && strings.TrimSpace(v) != "" && strings.TrimSpace(v) != "off" {
			n, err := ParseBytes(v)
			if err != nil {
				return Budget{}, fmt.Errorf("GOMEMLIMIT=%q: %w", v, err)
			}
			b.Bytes, b.Source = n, FromGOMEMLIMIT
			break
		}
		if in.Cgroup != nil {
			limit, err := in.Cgroup()
			switch {
			case err == nil && limit > 0 && limit < math.MaxInt64:
				b.Bytes, b.Source = int64(limit), FromCgroup
			case err == nil, errors.Is(err, automemlimit.ErrNoLimit), errors.Is(err, automemlimit.ErrNoCgroup),
				errors.Is(err, automemlimit.ErrCgroupsNotSupported):
				// No limit: the default.
			default:
				b.CgroupProblem = err.Error()
			}
		}
		if b.Source == "" {
			b.Bytes, b.Source = in.Default, FromDefault
		}
	}
	if b.Bytes < MinBudget {
		return Budget{}, fmt.Errorf("the memory budget from %s is %s, less than the %s the server needs idle; give at least %s",
			where(b.Source, in.SettingName), Format(b.Bytes), Format(MinBudget), Format(MinBudget))
	}
	b.SoftLimit = softLimit(b.Bytes)

	b.GOGC, b.GOGCSource = DefaultGOGC, "default"
	if v, ok := lookup("GOGC"); ok && strings.TrimSpace(v) != "" {
		gc, err := parseGOGC(v)
		if err != nil {
			return Budget{}, fmt.Errorf("GOGC=%q: %w", v, err)
		}
		b.GOGC, b.GOGCSource = gc, "GOGC"
	}
	return b, nil
}

// where names a budget's source in messages.
func where(s Source, settingName string) string {
	switch s {
	case FromSetting:
		if settingName != "" {
			return settingName
		}
		return "the setting"
	case FromGOMEMLIMIT:
		return "GOMEMLIMIT"
	case FromCgroup:
		return "the container's cgroup limit"
	}
	return "the default"
}

// parseGOGC reads GOGC as the runtime does: "off" or a percentage.
func parseGOGC(v string) (int, error) {
	v = strings.TrimSpace(v)
	if v == "off" {
		return -1, nil
	}
	gc, err := strconv.Atoi(v)
	if err != nil || gc < 0 {
		return 0, errors.New("must be off or a percentage of the live heap (0 or more), e.g. 100")
	}
	return gc, nil
}

// Apply gives the runtime b's soft limit and GOGC and returns what undoes
// it (for tests, which share one process).
func (b Budget) Apply() (restore func()) {
	limit := debug.SetMemoryLimit(b.SoftLimit)
	gc := debug.SetGCPercent(b.GOGC)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(gc)
	}
}

// units are the suffixes ParseBytes takes, as GOMEMLIMIT writes them.
var units = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// ParseBytes reads a byte count: a whole number of bytes, or one with a
// suffix KiB, MiB, GiB, TiB (powers of 1024) or B, as GOMEMLIMIT takes it:
// "536870912", "512MiB", "2 GiB".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	shift := uint(0)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, shift = strings.TrimSpace(rest), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64>>shift {
		return 0, errors.New("must be a whole number of bytes, or of KiB, MiB, GiB or TiB with that suffix, e.g. 536870912 or 512MiB")
	}
	return n << shift, nil
}

// Format writes a byte count the way ParseBytes reads it back, in the
// largest unit it is a whole number of ("512MiB", "1536KiB", "1000").
func Format(n int64) string {
	for _, u := range units[:4] {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Approx writes a byte count for people, in the largest unit it has at
// least one of, to a tenth where it is not whole ("460.8MiB").
func Approx(n int64) string {
	for _, u := range units[:4] {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return strconv.FormatInt(n>>u.shift, 10) + u.suffix
			}
			return strconv.FormatFloat(float64(n)/float64(int64(1)<<u.shift), 'f', 1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
