package main

import (
	"context"
	"crypto/subtle"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
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
	workers     int
	storeMaxN   int
	jobTimeout  time.Duration
	rescueAfter time.Duration
	stopTimeout time.Duration
	// precompute is serve's range to ask for on start ("" for none).
	precompute string
}

// workerEnv are the environment twins of the workers' flags.
var workerEnv = []envFlag{
	{"workers", envWorkers},
	{"store-max-n", envStoreMaxN},
	{"job-timeout", envJobTimeout},
	{"rescue-after", envRescue},
	{"precompute", envPrecompute},
	{"shutdown-timeout", envShutdown},
}

// addWorkerFlags defines the workers' flags on fs (and --precompute for
// serve); setFromEnv gives them their environment twins.
func addWorkerFlags(fs *flag.FlagSet, serve bool) *workerSettings {
	s := &workerSettings{}
	fs.IntVar(&s.workers, "workers", runtime.GOMAXPROCS(0), "chunks this process computes at once; four jobs a worker are in flight, so that some write while others compute ($"+envWorkers+")")
	fs.IntVar(&s.storeMaxN, "store-max-n", precompute.DefaultStoreMaxN,
		"storage limit: boards up to it keep every solution, boards above it (up to "+strconv.Itoa(precompute.MaxN)+") their counts only ($"+envStoreMaxN+")")
	fs.DurationVar(&s.jobTimeout, "job-timeout", time.Hour,
		"how long a job may run before it is taken for hung, cancelled and run again; a chunk gets 100 times its expected time when that is more (counts-only boards from N=23) ($"+envJobTimeout+")")
	fs.DurationVar(&s.rescueAfter, "rescue-after", precompute.DefaultRescueAfter,
		"how long a worker process may go without a heartbeat before the jobs it was running are run by others: a killed worker's chunks run again within about 1.25 times this ($"+envRescue+")")
	if serve {
		// serve's own --shutdown-timeout bounds the requests in flight;
		// its workers stop within the engine's default.
		fs.StringVar(&s.precompute, "precompute", defaultPrecompute,
			"boards to ask for on start, e.g. 1-14 or 8,10,12-14 (those done are skipped); none for none ($"+envPrecompute+")")
	} else {
		fs.DurationVar(&s.stopTimeout, "shutdown-timeout", 10*time.Second,
			"on SIGINT/SIGTERM, how long running chunks may commit before they are cancelled (to run again later) ($"+envShutdown+")")
	}
	return s
}

// check checks the settings after the command line is parsed.
func (s *workerSettings) check() error {
	switch {
	case s.workers < 1:
		return usagef("%s must be at least 1, got %d", setting("workers"), s.workers)
	case precompute.CheckStoreMaxN(s.storeMaxN) != nil:
		return usagef("%s: %v", setting("store-max-n"), precompute.CheckStoreMaxN(s.storeMaxN))
	case s.jobTimeout <= 0:
		return usagef("%s must be positive, got %s", setting("job-timeout"), s.jobTimeout)
	case precompute.CheckRescueAfter(s.rescueAfter, precompute.DefaultHeartbeat) != nil:
		return usagef("%s: %v", setting("rescue-after"), precompute.CheckRescueAfter(s.rescueAfter, precompute.DefaultHeartbeat))
	case s.stopTimeout < 0:
		return usagef("%s must not be negative, got %s", setting("shutdown-timeout"), s.stopTimeout)
	}
	if s.precompute != "" {
		if _, err := parseBoards(s.precompute); err != nil {
			return usagef("%s: %v", setting("precompute"), err)
		}
	}
	return nil
}

func (s *workerSettings) config(logger *slog.Logger) precompute.Config {
	return precompute.Config{
		Workers:     s.workers,
		StoreMaxN:   s.storeMaxN,
		JobTimeout:  s.jobTimeout,
		RescueAfter: s.rescueAfter,
		StopTimeout: s.stopTimeout,
		Logger:      logger,
	}
}

// open opens database db and an engine over it, not started. When
// migrate, it applies the store's and River's migrations first; else the
// schema must be at the version this binary expects already.
func (s *workerSettings) open(ctx context.Context, db database, migrate bool, logger *slog.Logger) (st store.Store, j *jobs, err error) {
	if st, err = openStore(ctx, db, !migrate); err != nil {
		return nil, nil, fmt.Errorf("opening the database (%s): %w", db, err)
	}
	if j, err = openJobs(ctx, st, migrate, s.config(logger)); err == nil && !migrate {
		if err = checkSchema(ctx, st, db.dialect, j.schema); err != nil {
			err = fmt.Errorf("--migrate=false: %w", err)
		}
	}
	if err != nil {
		err = outageOr(ctx, st, err) // startup.go: retried like the opening
		st.Close()
		return nil, nil, err
	}
	return st, j, nil
}

// stop stops the workers: the engine cancels the chunks still running
// after --shutdown-timeout, and a little more lets their rollbacks and
// River's bookkeeping finish.
func (s *workerSettings) stop(j *jobs) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.stopTimeout+10*time.Second)
	defer cancel()
	if err := j.Stop(ctx); err != nil {
		return fmt.Errorf("stopping the workers: %w", err)
	}
	return nil
}

// serveWorkers are serve's workers: the engine, started, and the River UI.
type serveWorkers struct {
	jobs   *jobs        // nil when the workers are off
	schema *riverSchema // River's tables, which /readyz checks even then
	logger *slog.Logger
	cancel context.CancelFunc // ends the River UI's background work
}

// startWorkers starts the workers of serve over st (applying River's
// migrations when migrate, as serve applies the store's), then asks for
// the boards of --precompute in the background (the done ones are
// skipped). Told not to migrate, over a database without River's tables
// (or with older ones), it leaves the workers off: the precompute
// mutation then answers UNAVAILABLE. Stop them with Stop, after the HTTP
// server has shut down.
func startWorkers(ctx context.Context, st store.Store, s *workerSettings, migrate bool, logger *slog.Logger) (*serveWorkers, error) {
	j, err := openJobs(ctx, st, migrate, s.config(logger))
	if err != nil {
		return nil, err
	}
	w := &serveWorkers{logger: logger, schema: j.schema}
	if !migrate {
		if ok, err := j.schemaUpToDate(ctx); err != nil || !ok {
			logger.Warn("River's tables are missing or out of date; the precompute workers are off until `nqueens migrate up`", "err", err)
			return w, nil
		}
	}
	if err := j.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	w.jobs = j
	ns, _ := parseBoards(s.precompute) // checked by check
	if len(ns) > 0 {
		go func() {
			for _, n := range ns {
				if _, err := j.Precompute(ctx, n, nil); err != nil {
					if ctx.Err() != nil {
						return // shutting down
					}
					logger.Error("asking for a board on start", "n", n, "err", err)
				}
			}
			logger.Info("asked for the boards of --precompute", "boards", s.precompute)
		}()
	}
	return w, nil
}

// Precomputer is the engine as the precompute mutation sees it; nil when
// the workers are off.
func (w *serveWorkers) Precomputer() graph.Precomputer {
	if w.jobs == nil {
		return nil
	}
	return w.jobs
}

// riverUI starts River's web UI, to be served at /riverui/ (startup.go
// mounts it for the admin only); nil when the workers are off.
func (w *serveWorkers) riverUI(ctx context.Context) (http.Handler, error) {
	if w.jobs == nil {
		return nil, nil
	}
	ui, err := w.jobs.newUI("/riverui", w.logger)
	if err != nil {
		return nil, fmt.Errorf("starting River UI: %w", err)
	}
	uictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := ui.Start(uictx); err != nil {
		cancel()
		return nil, fmt.Errorf("starting River UI: %w", err)
	}
	w.cancel = cancel
	return ui, nil
}

// Stop stops the workers (running chunks commit, or roll back and run
// again later, within the engine's stop timeout) and the River UI.
func (w *serveWorkers) Stop() {
	if w.cancel != nil {
		w.cancel()
	}
	if w.jobs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.jobs.Stop(ctx); err != nil {
		w.logger.Error("stopping the workers", "err", err)
	}
}

// adminOnly lets through requests that carry the admin token: as a bearer
// token (Authorization: Bearer …), as API clients send it, or as the
// password of HTTP basic authentication (any user name), which is how a
// browser sends it after asking for it. Without a token nobody passes.
// A browser sends basic credentials with requests that other sites make
// it send too, so requests that change something (River UI cancels and
// retries jobs) must come from a page of this server.
func adminOnly(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if token == "" {
			http.Error(w, "River UI is off: the server has no admin token (NQUEENS_ADMIN_TOKEN)", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(r) {
			http.Error(w, "River UI takes changes from its own pages only", http.StatusForbidden)
			return
		}
		given := bearerToken(r.Header.Get("Authorization"))
		if _, password, ok := r.BasicAuth(); ok {
			given = password
		}
		if subtle.ConstantTimeCompare([]byte(given), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="nqueens River UI (password: the admin token)"`)
			http.Error(w, "River UI needs the admin token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether a request comes from a page of this server:
// its Origin header, when it has one, names this host.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
