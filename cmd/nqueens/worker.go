package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
)

const workerSynopsis = "[--workers K] [--store-max-n N] [--job-timeout D] [--rescue-after D] [--shutdown-timeout D] [--migrate=false] [--log-level L] [--log-format F] …"

// workerOptions are what worker's settings set.
type workerOptions struct {
	workers  precompute.Config
	migrate  bool
	database databaseOptions
	log      logOptions
}

func newWorkerOptions() *workerOptions {
	return &workerOptions{workers: precompute.DefaultConfig(), migrate: true, database: newDatabaseOptions(), log: newLogOptions(slog.LevelInfo)}
}

// settings is worker's settings table.
func (o *workerOptions) settings() []setting {
	return slices.Concat(workerSettings(&o.workers, true), []setting{
		{flag: "migrate", into: &o.migrate, help: "apply the database migrations not applied yet on start; --migrate=false leaves the schema alone and stops if it is not at this binary's version"},
	}, o.database.settings(), o.log.settings())
}

// runWorker works precompute jobs until SIGINT or SIGTERM: any number of
// worker processes, on any number of machines, share the chunks of one
// Postgres database (River hands each chunk to one of them). On a signal
// it stops taking jobs, lets the running chunks commit (or, past
// --shutdown-timeout, cancels them: they roll back and run again later,
// here or elsewhere), and exits 0.
func runWorker(ctx context.Context, args []string, c console) error {
	o := newWorkerOptions()
	t := newSettings("worker", o.settings())
	pos, err := t.parse(args, c, workerSynopsis+"\n\nThe database: "+databaseEnvUsage+".\n"+tracingUsage)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("worker takes no arguments, got %s", strings.Join(pos, " "))
	}
	if err := t.refusal(&o.workers, o.workers.Check()); err != nil {
		return err
	}

	db, err := o.database.database(t)
	if err != nil {
		return err
	}

	logger := o.log.logger(c.stderr)
	tr, stopTracing, err := startTracing(ctx, c, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	workers := engineConfig(o.workers, logger)
	workers.TracerProvider = tr.TracerProvider()
	// An unreachable database is waited for; a signal meanwhile ends the
	// worker as cleanly as one later.
	st, j, err := service.StartWhenReachable(ctx, db, o.migrate, workers)
	if err != nil {
		if ctx.Err() != nil {
			logger.Info("stopped before the database was reachable")
			return nil
		}
		return err
	}
	defer st.Close()
	fmt.Fprintf(c.stdout, "nqueens: worker working %s at once on %s\n", progress.Plural(o.workers.Workers, "job"), db)
	logger.Info("worker started", "database", db.String(), "workers", o.workers.Workers, "store_max_n", o.workers.StoreMaxN)

	<-ctx.Done()
	logger.Info("stopping: running chunks commit or roll back", "timeout", o.workers.StopTimeout.String())
	if err := j.Shutdown(); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
