package main

import (
	"flag"
	"io"
	"log/slog"

	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
)

// lookupEnv reads an environment variable: os.LookupEnv in main, the
// test's own in tests. main is the only place that reads the environment.
type lookupEnv func(name string) (string, bool)

// databaseFlags adds the settings that select the database to fs, as
// nqueens has them (service.SelectDatabase): --database-url, whose twin
// DATABASE_URL sets its default, selects Postgres; without it, the SQLite
// file at --sqlite-path (NQUEENS_SQLITE_PATH). The function it returns,
// called after parsing, gives the database.
func databaseFlags(fs *flag.FlagSet, env lookupEnv) func() (service.Database, error) {
	url, _ := env(service.EnvDatabaseURL)
	path, ok := env(service.EnvSQLitePath)
	if !ok {
		path = service.DefaultSQLitePath
	}
	fs.StringVar(&url, "database-url", url, "Postgres `URL` ($"+service.EnvDatabaseURL+"); none: the SQLite file")
	fs.StringVar(&path, "sqlite-path", path, "the SQLite `FILE` used without a Postgres URL ($"+service.EnvSQLitePath+")")
	return func() (service.Database, error) {
		db, err := service.SelectDatabase(url, path)
		if err != nil {
			return db, usageError(err.Error())
		}
		return db, nil
	}
}

// engineConfig is the precompute engine's configuration for the setup
// commands: the defaults, logging warnings and errors to w.
func engineConfig(w io.Writer) precompute.Config {
	cfg := precompute.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return cfg
}
