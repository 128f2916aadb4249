package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/internal/service"
)

const migrateSynopsis = "up|down|version [--all] [--database-url URL] [--sqlite-path FILE]"

// migrateOptions are what migrate's settings set.
type migrateOptions struct {
	all      bool
	database databaseOptions
}

func newMigrateOptions() *migrateOptions { return &migrateOptions{database: newDatabaseOptions()} }

// settings is migrate's settings table.
func (o *migrateOptions) settings() []setting {
	return append([]setting{
		{flag: "all", env: flagOnly, into: &o.all, help: "with down: revert every migration, dropping all tables and data"},
	}, o.database.settings()...)
}

// runMigrate applies or reverts the schema migrations of the database the
// settings select, then prints where it stands, one "key value" line
// per field:
//
//	database sqlite ./nqueens.db
//	version 3
//	latest 3
//	dirty false
//	river_version 8
//	river_latest 8
//
// up applies every migration not applied yet, the store's and then those
// of River, the job system, whose tables live beside the store's; down
// reverts the store's last one, or with --all every one of both (the data
// and the jobs go with the tables); version only prints.
func runMigrate(ctx context.Context, args []string, c console) error {
	o := newMigrateOptions()
	t := newSettings("migrate", o.settings())
	pos, err := t.parse(args, c, migrateSynopsis+"\n\n"+databaseEnvUsage)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "up" && pos[0] != "down" && pos[0] != "version") {
		return usagef("want one of up, down, version; got %q", pos)
	}
	migration := map[string]service.Migration{"up": service.MigrateUp, "down": service.MigrateDownOne, "version": service.ShowVersions}[pos[0]]
	if o.all {
		if migration != service.MigrateDownOne {
			return usagef("--all goes with down only")
		}
		migration = service.MigrateDownAll
	}
	db, err := o.database.database(t)
	if err != nil {
		return err
	}
	v, err := service.Migrate(ctx, db, migration)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "database %s\nversion %d\nlatest %d\ndirty %t\nriver_version %d\nriver_latest %d\n",
		db, v.Version, v.Latest, v.Dirty, v.RiverVersion, v.RiverLatest)
	return err
}
