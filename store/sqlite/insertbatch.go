package sqlite

import (
	"context"
	"database/sql"
	"strings"
)

// insertBatchRows is how many solutions one INSERT writes. Each statement
// run through database/sql and the driver costs a few microseconds beyond
// SQLite's own work, so a chunk's rows go 256 at a time (1,024 parameters,
// well within SQLite's limit of 32,766): measured on N=15's 2.28 million
// rows, docs/PERFORMANCE.md, "First start on SQLite".
const insertBatchRows = 256

// insertBatch writes a chunk's solutions into the solutions table,
// insertBatchRows to a statement, in the order they come (the primary
// key's order, which keeps SQLite's B-tree appends cheap).
type insertBatch struct {
	tx   *sql.Tx
	n    int
	full *sql.Stmt // the INSERT of a full batch, prepared once
	args []any
	// keys holds the queued placements: the rows' own bytes are reused
	// for the next row. Its capacity is a full batch's, so that the
	// slices handed to args never move.
	keys []byte
}

// add queues one solution, writing the batch once it is full.
func (b *insertBatch) add(ctx context.Context, placement []byte, canonical bool, orbitSize int) error {
	if b.keys == nil {
		b.keys = make([]byte, 0, insertBatchRows*b.n)
	}
	start := len(b.keys)
	b.keys = append(b.keys, placement...)
	b.args = append(b.args, b.n, b.keys[start:len(b.keys):len(b.keys)], canonical, orbitSize)
	if len(b.args) < 4*insertBatchRows {
		return nil
	}
	if b.full == nil {
		stmt, err := b.tx.PrepareContext(ctx, insertSQL(insertBatchRows))
		if err != nil {
			return err
		}
		b.full = stmt
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args, b.keys = b.args[:0], b.keys[:0]
	return err
}

// flush writes what is queued.
func (b *insertBatch) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, insertSQL(len(b.args)/4), b.args...)
	b.args, b.keys = b.args[:0], b.keys[:0]
	return err
}

func (b *insertBatch) close() {
	if b.full != nil {
		b.full.Close()
	}
}

// insertSQL is the INSERT of rows solutions.
func insertSQL(rows int) string {
	var sb strings.Builder
	sb.WriteString("INSERT INTO solutions (n, placement, canonical, orbit_size) VALUES ")
	for i := range rows {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("(?,?,?,?)")
	}
	return sb.String()
}
