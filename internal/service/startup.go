package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
)

// Config is serve's database side: the database, its migrations and the
// workers over it.
type Config struct {
	Database Database
	// Migrate applies the migrations not applied yet, the store's and
	// River's, on start.
	Migrate bool
	// Workers are the precompute workers' settings (from
	// precompute.DefaultConfig); their logger is Logger. Their
	// TracerProvider traces the store's Postgres statements too.
	Workers precompute.Config
	// Precompute lists the boards to ask for once the workers run
	// (ParseBoards), e.g. "1-15"; "" or "none" for none.
	Precompute string
	// ReadURLs are the Postgres read replicas the API reads from
	// (replicas.go); none: it reads from the database.
	ReadURLs []string
	// APIOnly runs no workers and applies no migrations: the process only
	// reads (a role with SELECT alone is enough) and refuses what needs
	// writes (apionly.go). Migrate and Precompute are then ignored.
	APIOnly bool
	Logger  *slog.Logger
	// Observe, when not nil, is told of every call of the store (the
	// metrics).
	Observe store.Observer
}

// Startup brings serve's database side up while the server already
// answers, since a process may well start before its database: it opens
// the store, retrying with backoff while the database is unreachable,
// opens the read replicas in front of it (replicas.go), applies the
// migrations, starts the workers and asks for the boards of --precompute
// (none of these three when API-only: apionly.go). Meanwhile the API reads
// through a store that answers UNAVAILABLE, the precompute mutation
// answers UNAVAILABLE, and /readyz (readiness.go) says what is missing.
// Only an unreachable database is waited for: a bad URL or a failing
// migration ends serve.
type Startup struct {
	db         Database
	migrate    bool
	workersCfg precompute.Config
	precompute string
	readURLs   []string
	apiOnly    bool
	logger     *slog.Logger
	observe    store.Observer

	store   lateStore
	riverUI atomic.Pointer[http.Handler] // nil until the workers run

	mu       sync.Mutex
	opened   store.ReadCloser     // nil until open
	replicas *postgres.Replicated // nil until open, or without read replicas
	workers  *serveWorkers        // nil until started
	waiting  error                // why the database is not open yet
}

// NewStartup returns serve's database side as cfg says, not started:
// Run starts it.
func NewStartup(cfg Config) *Startup {
	cfg.Workers.Logger = cfg.Logger
	return &Startup{db: cfg.Database, migrate: cfg.Migrate && !cfg.APIOnly, workersCfg: cfg.Workers, precompute: cfg.Precompute,
		readURLs: cfg.ReadURLs, apiOnly: cfg.APIOnly, logger: cfg.Logger, observe: cfg.Observe}
}

// Store is the store the API reads through: EUNAVAILABLE until the
// database is open.
func (u *Startup) Store() store.Reader { return &u.store }

// Mount serves /readyz and River UI (for the admin only, and once the
// workers run) on srv.
func (u *Startup) Mount(srv *server.Server, adminToken string) {
	srv.Handle("GET /readyz", server.Readiness(time.Second, adminToken, u.readiness()))
	ui := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := u.riverUI.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.Error(w, "River UI is not running: the workers have not started (see /readyz)", http.StatusServiceUnavailable)
	})
	srv.Handle("/riverui/", adminOnly(adminToken, ui))
	srv.Handle("/riverui", http.RedirectHandler("/riverui/", http.StatusMovedPermanently))
}

// Run brings the database side up, waiting for the database while it is
// unreachable. It returns nil once up, or when ctx ends first; otherwise
// the error that must stop serve.
func (u *Startup) Run(ctx context.Context) error {
	err := whileUnreachable(ctx, u.db, u.logger, startBackoff, u.bringUp)
	switch {
	case ctx.Err() != nil:
		return nil
	case err != nil:
		return fmt.Errorf("opening the database (%s): %w", u.db, err)
	}
	_, w, _ := u.state()
	u.logger.Info("database open", "database", u.db.String(), "workers", w.jobs != nil, "api_only", u.apiOnly, "read_replicas", len(u.readURLs))
	return nil
}

// bringUp is one attempt at opening the store and starting the workers
// and River UI over it.
func (u *Startup) bringUp(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			u.mu.Lock()
			u.waiting = err
			u.mu.Unlock()
		}
	}()
	st, err := u.db.openStore(ctx, !u.migrate, u.observe, u.workersCfg.TracerProvider)
	if err != nil {
		return err
	}
	// The read replicas before the workers: a bad replica URL stops serve
	// before anything has started.
	reads := store.Reader(st)
	var replicas *postgres.Replicated
	if len(u.readURLs) > 0 {
		if replicas, err = openReplicas(ctx, st, u.readURLs, u.observe, u.logger); err != nil {
			st.Close()
			return err
		}
		reads = replicas
	}
	closeAll := func() {
		if replicas != nil {
			replicas.Close()
		}
		st.Close()
	}
	var w *serveWorkers
	if u.apiOnly {
		w, err = apiOnlyWorkers(ctx, st, u.db.Dialect(), u.logger)
	} else {
		w, err = startWorkers(ctx, st, u.workersCfg, u.precompute, u.migrate, u.logger)
	}
	if err != nil {
		err = outageOr(ctx, st, err)
		closeAll()
		return err
	}
	ui, err := w.riverUI(ctx)
	if err != nil {
		w.Stop()
		closeAll()
		return err
	}
	u.store.set(reads)
	if ui != nil {
		u.riverUI.Store(&ui)
	}
	u.mu.Lock()
	u.opened, u.replicas, u.workers, u.waiting = st, replicas, w, nil
	u.mu.Unlock()
	return nil
}

// state returns the store and the workers, nil until up, and why the
// database is not open yet.
func (u *Startup) state() (store.ReadCloser, *serveWorkers, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.opened, u.workers, u.waiting
}

// Precompute implements graph.Precomputer for the precompute mutation:
// UNAVAILABLE until the workers run.
func (u *Startup) Precompute(ctx context.Context, req store.BoardRequest, storeSolutions *bool) (store.Board, error) {
	_, w, _ := u.state()
	if w == nil {
		return store.Board{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "the workers start once the database is reachable")
	}
	if w.apiOnly {
		return store.Board{}, errAPIOnly
	}
	p := w.Precomputer()
	if p == nil {
		return store.Board{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "the workers are off: River's tables are missing or out of date")
	}
	return p.Precompute(ctx, req, storeSolutions)
}

// PrecomputeCount implements graph.Precomputer for the precomputeCount
// mutation: UNAVAILABLE until the workers run.
func (u *Startup) PrecomputeCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error) {
	_, w, _ := u.state()
	if w == nil {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "the workers start once the database is reachable")
	}
	if w.apiOnly {
		return store.FilteredCount{}, errAPIOnly
	}
	p := w.Precomputer()
	if p == nil {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "the workers are off: River's tables are missing or out of date")
	}
	return p.PrecomputeCount(ctx, n, f)
}

// StoresSolutions implements graph.PendingPlans for the API: from the
// board jobs once the workers run, else from the storage limit.
func (u *Startup) StoresSolutions(ctx context.Context, ns []int) (map[int]bool, error) {
	p := boardPlans{storeMaxN: u.workersCfg.StoreMaxN}
	if _, w, _ := u.state(); w != nil {
		p.jobs = w.jobs
	}
	return p.StoresSolutions(ctx, ns)
}

// JobCounts counts the jobs of the database for the metrics, once the
// workers run.
func (u *Startup) JobCounts(ctx context.Context) ([]precompute.JobCount, error) {
	_, w, _ := u.state()
	switch {
	case w == nil:
		return nil, errors.New("the database is not open yet")
	case w.jobs == nil:
		return nil, nil // the workers are off: River's tables are missing or out of date
	}
	return w.jobs.JobCounts(ctx)
}

// Close stops the workers and closes the store, if they were started:
// call it after the HTTP server has shut down.
func (u *Startup) Close() {
	st, w, _ := u.state()
	if w != nil {
		w.Stop()
	}
	u.mu.Lock()
	replicas := u.replicas
	u.mu.Unlock()
	if replicas != nil {
		replicas.Close()
	}
	if st != nil {
		st.Close()
	}
}

// StartWhenReachable opens database db (migrating it when migrate) and
// starts the workers over it, for `nqueens worker`, waiting for the
// database while it is unreachable as serve does. It returns ctx's error
// if ctx ends first.
func StartWhenReachable(ctx context.Context, db Database, migrate bool, cfg precompute.Config) (store.ReadCloser, *Jobs, error) {
	var st store.ReadCloser
	var j *Jobs
	err := whileUnreachable(ctx, db, cfg.Logger, startBackoff, func(ctx context.Context) error {
		var err error
		if st, j, err = Open(ctx, db, migrate, cfg); err != nil {
			return err
		}
		if err := j.Start(context.WithoutCancel(ctx)); err != nil {
			err = outageOr(ctx, st, err)
			st.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return st, j, nil
}

// whileUnreachable runs attempt until it succeeds, or fails for another
// reason than an unreachable Postgres server (EUNAVAILABLE), and returns
// that; or until ctx ends, and returns ctx's error. Between attempts it waits as b
// says and logs why at warn level.
func whileUnreachable(ctx context.Context, db Database, logger *slog.Logger, b backoff, attempt func(context.Context) error) error {
	for failed := 1; ; failed++ {
		err := attempt(ctx)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case nqueens.ErrorCode(err) != nqueens.EUNAVAILABLE, db.Dialect() != migrations.Postgres:
			// Only a server comes and goes: a SQLite file that cannot be
			// opened (or stays locked past the busy timeout) is a mistake
			// to report.
			return err
		}
		wait := b.delay(failed)
		logger.Warn("the database is unreachable; retrying", "database", db.String(),
			"attempt", failed, "retry_in", wait.Round(time.Millisecond).String(), "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// outageOr returns err as the database's unavailability if the database
// does not answer now: a start-up step after the store's opening (River's
// migrations, starting River) that failed because the database went away
// is retried like the opening.
func outageOr(ctx context.Context, st store.Reader, err error) error {
	if nqueens.ErrorCode(err) == nqueens.EUNAVAILABLE {
		return err
	}
	if perr := st.Ping(ctx); nqueens.ErrorCode(perr) == nqueens.EUNAVAILABLE {
		return fmt.Errorf("%v: %w", err, perr)
	}
	return err
}

// backoff says how long to wait after failed attempts: first, doubling
// with each failure up to max, less up to a quarter at random, so that
// processes started together do not retry together.
type backoff struct{ first, max time.Duration }

// startBackoff is how serve and worker wait for an unreachable database:
// about 0.5 s, 1 s, 2 s, … and then 15 s between attempts.
var startBackoff = backoff{first: 500 * time.Millisecond, max: 15 * time.Second}

// delay is the wait after the failed-th failure in a row (1 for the first).
func (b backoff) delay(failed int) time.Duration {
	d := b.first
	for i := 1; i < failed && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	return d - rand.N(d/4+1)
}
