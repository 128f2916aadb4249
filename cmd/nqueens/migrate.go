package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/nqueens/nqueens/migrations"
)

const migrateSynopsis = "up|down|version [--all] [--database-url URL] [--sqlite-path FILE]"

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
func runMigrate(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlagSet("migrate")
	all := fs.Bool("all", false, "with down: revert every migration, dropping all tables and data")
	dbFlags := addDatabaseFlags(fs)
	if err := setFromEnv(fs); err != nil {
		return err
	}
	pos, err := parseArgs(fs, migrateSynopsis+"\n\n"+databaseEnvUsage, args, stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "up" && pos[0] != "down" && pos[0] != "version") {
		return usagef("want one of up, down, version; got %q", pos)
	}
	action := pos[0]
	if *all && action != "down" {
		return usagef("--all goes with down only")
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	db := dbFlags.database()
	m, err := db.migrator()
	if err != nil {
		return err
	}
	defer m.Close()
	river, closeRiver, err := openRiverSchema(ctx, db)
	if err != nil {
		return err
	}
	defer closeRiver()
	switch {
	case action == "up":
		err = errors.Join(m.Up(), river.up(ctx))
	case action == "down" && *all:
		err = errors.Join(river.down(ctx), m.Down(0))
	case action == "down":
		err = m.Down(1)
	}
	if err != nil {
		return err
	}
	version, dirty, err := m.Version()
	if err != nil {
		return err
	}
	latest, err := migrations.Latest(db.dialect)
	if err != nil {
		return err
	}
	riverVersion, riverLatest, err := river.version(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "database %s\nversion %d\nlatest %d\ndirty %t\nriver_version %d\nriver_latest %d\n",
		db, version, latest, dirty, riverVersion, riverLatest)
	return err
}
