package store

import (
	"database/sql"

	"github.com/nqueens/nqueens/solver"
)

// CountColumns receives the six count columns that boards and chunks
// share (total_solutions, unique_solutions, orbit1_classes,
// orbit2_classes, orbit4_classes, orbit8_classes), NULL until known.
type CountColumns struct {
	Total, Unique, Orbit1, Orbit2, Orbit4, Orbit8 sql.NullInt64
}

// Dest returns scan destinations for the six columns, in that order.
func (c *CountColumns) Dest() []any {
	return []any{&c.Total, &c.Unique, &c.Orbit1, &c.Orbit2, &c.Orbit4, &c.Orbit8}
}

// Counts returns the counts, or nil when they are not known yet.
func (c *CountColumns) Counts() *solver.Counts {
	if !c.Total.Valid {
		return nil
	}
	return &solver.Counts{
		Total:  uint64(c.Total.Int64),
		Unique: uint64(c.Unique.Int64),
		Orbit1: uint64(c.Orbit1.Int64),
		Orbit2: uint64(c.Orbit2.Int64),
		Orbit4: uint64(c.Orbit4.Int64),
		Orbit8: uint64(c.Orbit8.Int64),
	}
}

// CountArgs returns counts as the six column values, in that order. Counts
// fit: the largest known total (N=27) is below 2^63.
func CountArgs(c solver.Counts) []any {
	return []any{int64(c.Total), int64(c.Unique), int64(c.Orbit1), int64(c.Orbit2), int64(c.Orbit4), int64(c.Orbit8)}
}
