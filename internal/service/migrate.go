package service

import (
	"context"
	"errors"

	"github.com/nqueens/nqueens/migrations"
)

// Migration is what Migrate does to a database's schemas: the store's and
// River's, whose tables live beside the store's.
type Migration int

const (
	// ShowVersions changes nothing.
	ShowVersions Migration = iota
	// MigrateUp applies every migration not applied yet, the store's and
	// then River's.
	MigrateUp
	// MigrateDownOne reverts the store's last migration.
	MigrateDownOne
	// MigrateDownAll reverts every migration of both, River's first: the
	// data and the jobs go with the tables.
	MigrateDownAll
)

// SchemaVersions says where a database's schemas stand.
type SchemaVersions struct {
	Version      uint // the store's schema
	Latest       uint // the store's latest migration in this binary
	Dirty        bool // a migration of the store's failed halfway
	RiverVersion int
	RiverLatest  int
}

// Migrate does m to database db, then reads where its schemas stand.
func Migrate(ctx context.Context, db Database, m Migration) (SchemaVersions, error) {
	var v SchemaVersions
	if err := ctx.Err(); err != nil {
		return v, err
	}
	store, err := db.Migrator()
	if err != nil {
		return v, err
	}
	defer store.Close()
	river, closeRiver, err := openRiverSchema(ctx, db)
	if err != nil {
		return v, err
	}
	defer closeRiver()
	switch m {
	case MigrateUp:
		err = errors.Join(store.Up(), river.up(ctx))
	case MigrateDownAll:
		err = errors.Join(river.down(ctx), store.DownAll())
	case MigrateDownOne:
		err = store.Down(1)
	}
	if err != nil {
		return v, err
	}
	if v.Version, v.Dirty, err = store.Version(); err != nil {
		return v, err
	}
	if v.Latest, err = migrations.Latest(db.Dialect()); err != nil {
		return v, err
	}
	v.RiverVersion, v.RiverLatest, err = river.version(ctx)
	return v, err
}
