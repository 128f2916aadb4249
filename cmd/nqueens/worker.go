package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/internal/service"
)

const workerSynopsis = "[--workers K] [--store-max-n N] [--job-timeout D] [--rescue-after D] [--shutdown-timeout D] [--migrate=false] [--log-level L] [--log-format F] …"

// runWorker works precompute jobs until SIGINT or SIGTERM: any number of
// worker processes, on any number of machines, share the chunks of one
// Postgres database (River hands each chunk to one of them). On a signal
// it stops taking jobs, lets the running chunks commit (or, past
// --shutdown-timeout, cancels them: they roll back and run again later,
// here or elsewhere), and exits 0.
func runWorker(ctx context.Context, args []string, c console) error {
	fs := newFlagSet("worker")
	s := addWorkerFlags(fs, false)
	migrate := fs.Bool("migrate", true, "apply the database migrations not applied yet on start; --migrate=false leaves the schema alone and stops if it is not at this binary's version ($NQUEENS_MIGRATE)")
	dbFlags := addDatabaseFlags(fs)
	logFlags := addLogFlags(fs, slog.LevelInfo)
	if err := setFromEnv(fs, c.lookupEnv); err != nil {
		return err
	}
	pos, err := parseArgs(fs, workerSynopsis+"\n\nThe database: "+databaseEnvUsage+".", args, c.stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("worker takes no arguments, got %s", strings.Join(pos, " "))
	}
	if err := s.check(); err != nil {
		return err
	}

	db, err := dbFlags.database()
	if err != nil {
		return err
	}

	logger := logFlags.logger(c.stderr)
	// An unreachable database is waited for; a signal meanwhile ends the
	// worker as cleanly as one later.
	st, j, err := service.StartWhenReachable(ctx, db, *migrate, s.engineConfig(logger))
	if err != nil {
		if ctx.Err() != nil {
			logger.Info("stopped before the database was reachable")
			return nil
		}
		return err
	}
	defer st.Close()
	fmt.Fprintf(c.stdout, "nqueens: worker working %s at once on %s\n", progress.Plural(s.config.Workers, "job"), db)
	logger.Info("worker started", "database", db.String(), "workers", s.config.Workers, "store_max_n", s.config.StoreMaxN)

	<-ctx.Done()
	logger.Info("stopping: running chunks commit or roll back", "timeout", s.config.StopTimeout.String())
	if err := j.Shutdown(); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
