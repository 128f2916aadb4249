package main

import (
	"github.com/nqueens/nqueens/internal/service"
)

// The database comes from --database-url or DATABASE_URL, which selects
// Postgres; without it, the SQLite file at --sqlite-path or
// NQUEENS_SQLITE_PATH.
const (
	envDatabaseURL   = service.EnvDatabaseURL
	defaultSQLiteDB  = service.DefaultSQLitePath
	databaseEnvUsage = "--database-url or " + envDatabaseURL + "=postgres://… selects Postgres; without it, the SQLite file at\n--sqlite-path or NQUEENS_SQLITE_PATH (default " + defaultSQLiteDB + ")"
)

// databaseOptions are the settings that select the database.
type databaseOptions struct{ url, sqlitePath string }

func newDatabaseOptions() databaseOptions { return databaseOptions{sqlitePath: defaultSQLiteDB} }

func (o *databaseOptions) settings() []setting {
	return []setting{
		{flag: "database-url", env: envDatabaseURL, into: &o.url, help: "Postgres `URL` (postgres://user@host/db?sslmode=…); none: the SQLite file. Prefer the variable: a flag shows in the process list, password and all"},
		{flag: "sqlite-path", into: &o.sqlitePath, help: "the SQLite `FILE` used without a Postgres URL, created if missing"},
	}
}

// database is the database the settings of t select
// (service.SelectDatabase).
func (o *databaseOptions) database(t *settingsTable) (service.Database, error) {
	db, err := service.SelectDatabase(o.url, o.sqlitePath)
	if err != nil {
		return db, usagef("%s is empty; name the SQLite file (default %s), or give a Postgres URL", t.name("sqlite-path"), defaultSQLiteDB)
	}
	return db, nil
}
