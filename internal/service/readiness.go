package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
)

// readiness returns serve's /readyz checks: the database answers now, its
// schema (the store's and River's) is at the version this binary expects,
// and the workers run (none in an API-only process); with read replicas,
// whether each answers (degraded, still ready, when one does not).
func (u *Startup) readiness() map[string]server.Checker {
	checks := map[string]server.Checker{
		"database":   server.CheckerFunc(u.checkDatabase),
		"migrations": server.CheckerFunc(u.checkMigrations),
		"workers":    server.CheckerFunc(u.checkWorkers),
	}
	if len(u.readURLs) > 0 {
		checks["replicas"] = server.CheckerFunc(u.checkReplicas) // replicas.go
	}
	return checks
}

// errNotUpYet is the reason of the checks that need the database while it
// has not been opened yet.
var errNotUpYet = errors.New("not checked: the database has not been reachable yet")

func (u *Startup) checkDatabase(ctx context.Context) error {
	st, _, waiting := u.state()
	if st == nil {
		if waiting == nil {
			return errors.New("unreachable: not connected yet")
		}
		return fmt.Errorf("unreachable: %v", cause(waiting))
	}
	if err := st.Ping(ctx); err != nil {
		return fmt.Errorf("unreachable: %v", cause(err))
	}
	return nil
}

// schemaVersioner is a store that reports the version of its schema
// (both backends do).
type schemaVersioner interface {
	SchemaVersion(ctx context.Context) (version uint, dirty bool, err error)
}

func (u *Startup) checkMigrations(ctx context.Context) error {
	st, w, _ := u.state()
	if st == nil || w == nil {
		return errNotUpYet
	}
	return checkSchema(ctx, st, u.db.Dialect(), w.schema)
}

// checkSchema checks that the schema of st's database, the store's and
// River's, is at the version this binary expects.
func checkSchema(ctx context.Context, st store.Reader, dialect migrations.Dialect, river *riverSchema) error {
	sv, ok := st.(schemaVersioner)
	if !ok {
		return fmt.Errorf("a %T store does not report its schema version", st)
	}
	version, dirty, err := sv.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("unknown: %v", cause(err))
	}
	latest, err := migrations.Latest(dialect)
	if err != nil {
		return err
	}
	switch {
	case dirty:
		return fmt.Errorf("the schema is dirty at version %d: a migration failed halfway", version)
	case version != latest:
		return fmt.Errorf("the schema is at version %d, this binary expects %d (nqueens migrate up)", version, latest)
	}
	riverVersion, riverLatest, err := river.version(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("unknown: %v", cause(err))
	case riverVersion != riverLatest:
		return fmt.Errorf("the job system's (River's) schema is at version %d, this binary expects %d (nqueens migrate up)", riverVersion, riverLatest)
	}
	return nil
}

func (u *Startup) checkWorkers(context.Context) error {
	_, w, _ := u.state()
	switch {
	case w == nil:
		return errors.New("not started: the database has not been reachable yet")
	case w.apiOnly:
		return nil // none to run: the process only reads
	case w.jobs == nil:
		return errors.New("off: River's tables are missing or out of date (nqueens migrate up, then restart)")
	}
	select {
	case <-w.jobs.stopped():
		return errors.New("stopped")
	default:
		return nil
	}
}

// cause is the driver's own words for a store error, which say more to
// an operator ("dial tcp …: connection refused") than the store's message.
func cause(err error) error {
	var se *nqueens.Error
	if errors.As(err, &se) && se.Err != nil {
		return se.Err
	}
	return err
}
