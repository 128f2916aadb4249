package service

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
	"riverqueue.com/riverui"

	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/sqlite"
)

// The job system (River) lives in the store's database: riverpgxv5 over
// the Postgres store's pool, riversqlite over the SQLite store's one write
// connection. This file picks the driver for a store; the rest of the
// package uses the driver-free interfaces below.

// engine is what the processes use of a precompute.Engine, whatever its
// driver.
type engine interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Precompute(ctx context.Context, req store.BoardRequest, storeSolutions *bool) (store.Board, error)
	JobCounts(ctx context.Context) ([]precompute.JobCount, error)
	PrecomputeCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error)
	PlanBoard(ctx context.Context, p store.BoardPlan) (store.Board, bool, error)
}

// Jobs is the precompute engine of a store and the River UI over its
// jobs.
type Jobs struct {
	engine
	schema *riverSchema
	// stopTimeout is the engine's: how long Stop lets running chunks
	// commit before it cancels them.
	stopTimeout time.Duration
	// stopped is closed once River's client, started, has stopped.
	stopped func() <-chan struct{}
	// newUI makes a River UI handler served under prefix; it must be
	// started (Handler.Start) before it serves.
	newUI func(prefix string, logger *slog.Logger) (*riverui.Handler, error)
	// askedPlans reads, from the board jobs that wait or run, whether
	// each of boards ns was asked for with its solutions; a board with
	// no such job is left out.
	askedPlans func(ctx context.Context, ns []int) (map[int]bool, error)
}

// openJobs returns an engine over st's database, applying River's
// migrations first when migrate; nothing runs until its Start.
func openJobs(ctx context.Context, st store.Reader, migrate bool, cfg precompute.Config) (*Jobs, error) {
	switch s := st.(type) {
	case *postgres.Store:
		return newJobs(ctx, s, riverpgxv5.New(s.Pool()), postgresSchema(s.Pool()), migrate, cfg)
	case *sqlite.Store:
		return newJobs(ctx, s, riversqlite.New(s.Writer()), sqliteSchema(s.Writer()), migrate, cfg)
	}
	return nil, fmt.Errorf("no job system for a %T store", st)
}

func newJobs[TTx any, TDriver riverdriver.Driver[TTx]](ctx context.Context, st store.Store[TTx], driver TDriver, schema *riverSchema, migrate bool, cfg precompute.Config) (*Jobs, error) {
	if migrate {
		if err := schema.up(ctx); err != nil {
			return nil, err
		}
	}
	e, err := precompute.New[TTx](st, driver, cfg)
	if err != nil {
		return nil, err
	}
	newUI := func(prefix string, logger *slog.Logger) (*riverui.Handler, error) {
		return riverui.NewHandler(&riverui.HandlerOpts{
			Endpoints: riverui.NewEndpoints(e.Client(), nil),
			Logger:    logger,
			Prefix:    prefix,
		})
	}
	// River's client makes the channel when it starts.
	stopped := func() <-chan struct{} { return e.Client().Stopped() }
	askedPlans := func(ctx context.Context, ns []int) (map[int]bool, error) {
		// A board has one board job at most while it waits or runs
		// (unique by N): a page holds them all.
		live := river.NewJobListParams().Kinds(precompute.KindBoard).First(1000).
			States(rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
				rivertype.JobStateRunning, rivertype.JobStateScheduled)
		res, err := e.Client().JobList(ctx, live)
		if err != nil {
			return nil, err
		}
		asked := map[int]bool{}
		for _, job := range res.Jobs {
			var a precompute.BoardArgs
			if err := json.Unmarshal(job.EncodedArgs, &a); err != nil {
				return nil, fmt.Errorf("board job %d: %w", job.ID, err)
			}
			if slices.Contains(ns, a.N) {
				asked[a.N] = a.StoreSolutions
			}
		}
		return asked, nil
	}
	return &Jobs{engine: e, schema: schema, stopTimeout: cfg.StopTimeout, stopped: stopped, newUI: newUI, askedPlans: askedPlans}, nil
}

// boardPlans says whether pending boards will keep their solutions
// (graph.PendingPlans): as their board jobs were asked, else, for a board
// whose job is gone, as the storage limit says, which is what asking
// again without a choice gives.
type boardPlans struct {
	jobs      *Jobs // nil: no job system to ask
	storeMaxN int
}

func (p boardPlans) StoresSolutions(ctx context.Context, ns []int) (map[int]bool, error) {
	stores := make(map[int]bool, len(ns))
	for _, n := range ns {
		stores[n] = n <= p.storeMaxN
	}
	if p.jobs == nil {
		return stores, nil
	}
	asked, err := p.jobs.askedPlans(ctx, ns)
	if err != nil {
		return nil, err
	}
	maps.Copy(stores, asked)
	return stores, nil
}

// schemaUpToDate reports whether River's tables are at the latest version.
func (j *Jobs) schemaUpToDate(ctx context.Context) (bool, error) {
	version, latest, err := j.schema.version(ctx)
	return version == latest, err
}

// riverSchema applies River's migrations to one database.
type riverSchema struct {
	up      func(ctx context.Context) error
	down    func(ctx context.Context) error
	version func(ctx context.Context) (version, latest int, err error)
}

func newRiverSchema[TTx any](driver riverdriver.Driver[TTx], serialize func(ctx context.Context, f func() error) error) *riverSchema {
	return &riverSchema{
		up: func(ctx context.Context) error {
			return serialize(ctx, func() error { return precompute.MigrateUp(ctx, driver) })
		},
		down: func(ctx context.Context) error {
			return serialize(ctx, func() error { return precompute.MigrateDown(ctx, driver) })
		},
		version: func(ctx context.Context) (int, int, error) { return precompute.MigrationVersion(ctx, driver) },
	}
}

// postgresSchema migrates River's tables in the schema the pool's
// connections use. River's migrations take no lock of their own, and
// several processes starting at once would race to create the same
// tables: an advisory lock, per schema, takes them one at a time.
func postgresSchema(pool *pgxpool.Pool) *riverSchema {
	return newRiverSchema(riverpgxv5.New(pool), func(ctx context.Context, f func() error) (err error) {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		const key = `hashtext('nqueens: river migrations in ' || current_schema())`
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
			return fmt.Errorf("locking River's migrations: %w", err)
		}
		defer func() {
			_, unlockErr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+key+`)`)
			err = errors.Join(err, unlockErr)
		}()
		return f()
	})
}

// sqliteSchema migrates River's tables in the SQLite file: its one write
// connection takes writers one at a time already.
func sqliteSchema(writer *sql.DB) *riverSchema {
	return newRiverSchema(riversqlite.New(writer), func(_ context.Context, f func() error) error { return f() })
}

// openRiverSchema opens database d without applying the store's
// migrations, for Migrate; close closes it.
func openRiverSchema(ctx context.Context, d Database) (schema *riverSchema, close func() error, err error) {
	if d.Dialect() == migrations.Postgres {
		cfg := postgres.DefaultConfig()
		cfg.URL, cfg.SkipMigrations = d.URL, true
		s, err := postgres.Open(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		return postgresSchema(s.Pool()), s.Close, nil
	}
	cfg := sqlite.DefaultConfig()
	cfg.Path, cfg.SkipMigrations = d.Path, true
	s, err := sqlite.Open(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return sqliteSchema(s.Writer()), s.Close, nil
}
