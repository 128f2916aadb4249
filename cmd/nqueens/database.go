package main

import (
	"os"

	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/sqlite"
)

// The database comes from the environment (DESIGN.md, interface
// contract): DATABASE_URL selects Postgres; without it, the SQLite file at
// NQUEENS_SQLITE_PATH.
const (
	envDatabaseURL   = "DATABASE_URL"
	envSQLitePath    = "NQUEENS_SQLITE_PATH"
	defaultSQLiteDB  = "./nqueens.db"
	databaseEnvUsage = envDatabaseURL + "=postgres://… selects Postgres; unset, the SQLite file at " +
		envSQLitePath + " (default " + defaultSQLiteDB + ")"
)

// database says which database the environment selects, for messages.
type database struct {
	dialect migrations.Dialect
	url     string // Postgres
	path    string // SQLite
}

func databaseFromEnv() database {
	if u := os.Getenv(envDatabaseURL); u != "" {
		return database{dialect: migrations.Postgres, url: u}
	}
	path := os.Getenv(envSQLitePath)
	if path == "" {
		path = defaultSQLiteDB
	}
	return database{dialect: migrations.SQLite, path: path}
}

// String names the database without the URL, which may hold a password.
func (d database) String() string {
	if d.dialect == migrations.Postgres {
		return "postgres (" + envDatabaseURL + ")"
	}
	return "sqlite " + d.path
}

func (d database) migrator() (*migrations.Migrator, error) {
	if d.dialect == migrations.Postgres {
		return postgres.NewMigrator(d.url)
	}
	return sqlite.NewMigrator(d.path)
}
