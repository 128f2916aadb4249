package main

import (
	"log/slog"
	"strconv"

	"github.com/nqueens/nqueens/precompute"
)

// workerSettings are the settings of the precompute workers of one
// process, shared by serve, worker and precompute, into the engine's
// configuration cfg (precompute.DefaultConfig). With stopTimeout they
// include --shutdown-timeout, the engine's StopTimeout: serve's own
// --shutdown-timeout bounds the requests in flight, and its workers stop
// within the engine's default.
func workerSettings(cfg *precompute.Config, stopTimeout bool) []setting {
	lines := []setting{
		{flag: "workers", into: &cfg.Workers, dflt: "one per core", help: "chunks this process computes at once; four jobs a worker are in flight, so that some write while others compute"},
		{flag: "store-max-n", into: &cfg.StoreMaxN, help: "storage limit: boards up to it keep every solution, boards above it (up to " + strconv.Itoa(precompute.MaxN) + ") their counts only"},
		{flag: "job-timeout", into: &cfg.JobTimeout, help: "how long a job may run before it is taken for hung, cancelled and run again; a chunk gets 100 times its expected time when that is more (counts-only boards from N=23, whose tasks run for minutes to days), so it needs no raising. A dead worker is noticed by --rescue-after, not by this"},
		{flag: "rescue-after", into: &cfg.RescueAfter, help: "how long a worker process may go without a heartbeat (one a second, in the workers table) before the jobs it was running are run by others: a killed worker's chunks run again within about 1.25 times this. At least 5s; give every process the same"},
	}
	if stopTimeout {
		lines = append(lines, setting{flag: "shutdown-timeout", into: &cfg.StopTimeout, help: "on SIGINT/SIGTERM, how long running chunks may commit before they are cancelled (to run again later); 0: they are cancelled at once"})
	}
	return lines
}

// engineConfig is the engine's configuration cfg with its logger.
func engineConfig(cfg precompute.Config, logger *slog.Logger) precompute.Config {
	cfg.Logger = logger
	return cfg
}
