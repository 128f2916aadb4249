// Package columns is how both backends write the store's values into
// their columns and read them back: counts, chunk keys, the kind of a
// plan's chunks and the key a page compares placements with.
package columns

import (
	"database/sql"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Counts receives the six count columns that boards and chunks
// share (total_solutions, unique_solutions, orbit1_classes,
// orbit2_classes, orbit4_classes, orbit8_classes), NULL until known.
type Counts struct {
	Total, Unique, Orbit1, Orbit2, Orbit4, Orbit8 sql.NullInt64
}

// Dest returns scan destinations for the six columns, in that order.
func (c *Counts) Dest() []any {
	return []any{&c.Total, &c.Unique, &c.Orbit1, &c.Orbit2, &c.Orbit4, &c.Orbit8}
}

// Counts returns the counts, or nil when they are not known yet.
func (c *Counts) Counts() *solver.Counts {
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

// ChunkKind is what the plan's chunks are, as the boards table records it
// (chunk_kind): "task" or "prefix", also the chunk rows' key column.
func ChunkKind(p store.BoardPlan) string {
	if p.Tasks {
		return "task"
	}
	return "prefix"
}

// CursorKey is the key a page query compares placements with: the cursor's
// bytes, or for an empty cursor a bound beyond every placement on the
// page's side. The empty key sorts before every placement; the single byte
// 0xFF sorts after them all, since no column reaches 255 (N ≤ 32). Both
// backends thus need one query per direction, cursor or not.
func CursorKey(r store.PageRequest) []byte {
	switch {
	case len(r.Cursor) > 0:
		return r.Cursor.Bytes()
	case r.Direction == store.Backward:
		return []byte{0xFF}
	}
	return []byte{}
}
