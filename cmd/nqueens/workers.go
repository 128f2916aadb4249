package main

import (
	"flag"
	"log/slog"
	"strconv"

	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
)

// The precompute workers' settings, shared by serve, worker and
// precompute, each flag with its environment twin.
const (
	envWorkers    = "NQUEENS_WORKERS"
	envStoreMaxN  = "NQUEENS_STORE_MAX_N"
	envJobTimeout = "NQUEENS_JOB_TIMEOUT"
	envRescue     = "NQUEENS_RESCUE_AFTER"
	envPrecompute = "NQUEENS_PRECOMPUTE"
	envShutdown   = "NQUEENS_SHUTDOWN_TIMEOUT"

	// defaultPrecompute is what serve asks for on start: on the project's
	// machine (2 cores) a first start computes and stores N=1..15 in 25 s
	// on SQLite and 13 s on Postgres (docs/PERFORMANCE.md, "Precompute");
	// N=16 alone takes 50 s on Postgres and 136 s on SQLite.
	defaultPrecompute = "1-15"
)

// workerSettings are the settings of the workers of one process.
type workerSettings struct {
	// config is the engine's configuration, which the flags set.
	config precompute.Config
	// precompute is serve's range to ask for on start ("" for none).
	precompute string
}

// workerEnv are the environment twins of the workers' flags, with the
// field of precompute.Config each sets.
var workerEnv = []envFlag{
	{"workers", envWorkers, "Workers"},
	{"store-max-n", envStoreMaxN, "StoreMaxN"},
	{"job-timeout", envJobTimeout, "JobTimeout"},
	{"rescue-after", envRescue, "RescueAfter"},
	{"precompute", envPrecompute, ""},
	{"shutdown-timeout", envShutdown, "StopTimeout"},
}

// addWorkerFlags defines the workers' flags on fs (and --precompute for
// serve), with the engine's defaults (precompute.DefaultConfig);
// setFromEnv gives them their environment twins.
func addWorkerFlags(fs *flag.FlagSet, serve bool) *workerSettings {
	def := precompute.DefaultConfig()
	s := &workerSettings{config: def}
	fs.IntVar(&s.config.Workers, "workers", def.Workers, "chunks this process computes at once; four jobs a worker are in flight, so that some write while others compute ($"+envWorkers+")")
	fs.IntVar(&s.config.StoreMaxN, "store-max-n", def.StoreMaxN,
		"storage limit: boards up to it keep every solution, boards above it (up to "+strconv.Itoa(precompute.MaxN)+") their counts only ($"+envStoreMaxN+")")
	fs.DurationVar(&s.config.JobTimeout, "job-timeout", def.JobTimeout,
		"how long a job may run before it is taken for hung, cancelled and run again; a chunk gets 100 times its expected time when that is more (counts-only boards from N=23) ($"+envJobTimeout+")")
	fs.DurationVar(&s.config.RescueAfter, "rescue-after", def.RescueAfter,
		"how long a worker process may go without a heartbeat before the jobs it was running are run by others: a killed worker's chunks run again within about 1.25 times this ($"+envRescue+")")
	if serve {
		// serve's own --shutdown-timeout bounds the requests in flight;
		// its workers stop within the engine's default.
		fs.StringVar(&s.precompute, "precompute", defaultPrecompute,
			"boards to ask for on start, e.g. 1-14 or 8,10,12-14 (those done are skipped); none for none ($"+envPrecompute+")")
	} else {
		fs.DurationVar(&s.config.StopTimeout, "shutdown-timeout", def.StopTimeout,
			"on SIGINT/SIGTERM, how long running chunks may commit before they are cancelled (to run again later) ($"+envShutdown+")")
	}
	return s
}

// check checks the settings after the command line is parsed.
func (s *workerSettings) check() error {
	if err := s.config.Check(); err != nil {
		return settingError(err, workerEnv)
	}
	if s.precompute != "" {
		if _, err := service.ParseBoards(s.precompute); err != nil {
			return usagef("%s: %v", setting("precompute"), err)
		}
	}
	return nil
}

// engineConfig is the engine's configuration; its logger is logger.
func (s *workerSettings) engineConfig(logger *slog.Logger) precompute.Config {
	cfg := s.config
	cfg.Logger = logger
	return cfg
}
