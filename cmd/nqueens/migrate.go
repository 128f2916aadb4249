package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/nqueens/nqueens/migrations"
)

const migrateSynopsis = "up|down|version [--all]"

// runMigrate applies or reverts the schema migrations of the database the
// environment selects, then prints where it stands, one "key value" line
// per field:
//
//	database sqlite ./nqueens.db
//	version 2
//	latest 2
//	dirty false
//
// up applies every migration not applied yet; down reverts the last one,
// or with --all every one (the data goes with the tables); version only
// prints.
func runMigrate(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlagSet("migrate")
	all := fs.Bool("all", false, "with down: revert every migration, dropping all tables and data")
	fs.Usage = func() {}
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

	db := databaseFromEnv()
	m, err := db.migrator()
	if err != nil {
		return err
	}
	defer m.Close()
	switch action {
	case "up":
		err = m.Up()
	case "down":
		steps := 1
		if *all {
			steps = 0
		}
		err = m.Down(steps)
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
	_, err = fmt.Fprintf(stdout, "database %s\nversion %d\nlatest %d\ndirty %t\n", db, version, latest, dirty)
	return err
}
