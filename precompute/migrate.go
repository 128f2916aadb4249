package precompute

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
)

// River keeps its jobs in tables of its own (river_job, river_queue,
// river_leader, …), created by its own migrations, which run wherever the
// store's run: when a command opens the database, and in `nqueens migrate`.

// MigrateUp applies River's migrations not yet applied.
func MigrateUp[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	return migrate(ctx, driver, rivermigrate.DirectionUp)
}

// MigrateDown reverts all of River's migrations, dropping its tables and
// the jobs in them.
func MigrateDown[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	return migrate(ctx, driver, rivermigrate.DirectionDown)
}

func migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], dir rivermigrate.Direction) error {
	m, err := newMigrator(driver)
	if err != nil {
		return err
	}
	opts := &rivermigrate.MigrateOpts{}
	if dir == rivermigrate.DirectionDown {
		opts.TargetVersion = -1 // all the way
	}
	if _, err := m.Migrate(ctx, dir, opts); err != nil {
		return fmt.Errorf("river migrations: %s: %w", dir, err)
	}
	return nil
}

// MigrationVersion returns the version of River's schema (0 when none) and
// the latest one.
func MigrationVersion[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) (version, latest int, err error) {
	m, err := newMigrator(driver)
	if err != nil {
		return 0, 0, err
	}
	all := m.AllVersions()
	latest = all[len(all)-1].Version
	applied, err := m.ExistingVersions(ctx)
	if err != nil {
		return 0, latest, fmt.Errorf("river migrations: %w", err)
	}
	if len(applied) > 0 {
		version = applied[len(applied)-1].Version
	}
	return version, latest, nil
}

func newMigrator[TTx any](driver riverdriver.Driver[TTx]) (*rivermigrate.Migrator[TTx], error) {
	// Migrations log each step at info level; commands print where they
	// stand themselves.
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: quiet})
	if err != nil {
		return nil, fmt.Errorf("river migrations: %w", err)
	}
	return m, nil
}
