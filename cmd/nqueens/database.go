package main

import (
	"flag"

	"github.com/nqueens/nqueens/internal/service"
)

// The database comes from --database-url or DATABASE_URL (DESIGN.md,
// interface contract), which selects Postgres; without it, the SQLite file
// at --sqlite-path or NQUEENS_SQLITE_PATH.
const (
	envDatabaseURL   = "DATABASE_URL"
	envSQLitePath    = "NQUEENS_SQLITE_PATH"
	defaultSQLiteDB  = "./nqueens.db"
	databaseEnvUsage = "--database-url or " + envDatabaseURL + "=postgres://… selects Postgres; without it, the SQLite file at\n--sqlite-path or " +
		envSQLitePath + " (default " + defaultSQLiteDB + ")"
)

// databaseSettings are the --database-url and --sqlite-path flags.
type databaseSettings struct{ url, sqlitePath string }

// addDatabaseFlags defines the database's flags on fs.
func addDatabaseFlags(fs *flag.FlagSet) *databaseSettings {
	s := &databaseSettings{}
	fs.StringVar(&s.url, "database-url", "", "Postgres `URL` (postgres://user@host/db?sslmode=…); none: the SQLite file. Prefer $"+envDatabaseURL+
		": a flag shows in the process list, password and all ($"+envDatabaseURL+")")
	fs.StringVar(&s.sqlitePath, "sqlite-path", defaultSQLiteDB, "the SQLite `FILE` used without a Postgres URL, created if missing ($"+envSQLitePath+")")
	return s
}

// database is the database the settings select.
func (s *databaseSettings) database() (service.Database, error) {
	switch {
	case s.url != "":
		return service.Database{URL: s.url}, nil
	case s.sqlitePath == "":
		return service.Database{}, usagef("%s is empty; name the SQLite file (default %s), or give a Postgres URL", setting("sqlite-path"), defaultSQLiteDB)
	}
	return service.Database{Path: s.sqlitePath}, nil
}
