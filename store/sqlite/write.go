package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/chunkrows"
	"github.com/nqueens/nqueens/store/internal/columns"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// WriteChunk stores one computed chunk; see store.Writer.
//
// Write transactions are serialised (one connection, the write lock taken
// at BEGIN), so the chunk row read first cannot change under us: a chunk
// already done is the whole of the idempotence, and the solutions go
// straight into their table.
func (s *queries) WriteChunk(ctx context.Context, w store.ChunkWrite, inTx store.TxFunc[*sql.Tx]) (lastChunk bool, err error) {
	n := w.N()
	keyColumn, key := columns.WriteKey(w)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var idx int
		var done, stores bool
		var state string
		err := tx.QueryRowContext(ctx, `SELECT c.idx, c.done_at IS NOT NULL, b.stores_solutions, b.state
			FROM chunks AS c JOIN boards AS b ON b.n = c.n
			WHERE c.n = ? AND c.`+keyColumn+` = ?`, n, key).Scan(&idx, &done, &stores, &state)
		if errors.Is(err, sql.ErrNoRows) {
			return lifecycle.ChunkNotFound(w)
		}
		if err != nil {
			return err
		}
		if done {
			if inTx != nil {
				return inTx(ctx, tx)
			}
			return nil
		}
		lastChunk, err = writeChunk(ctx, tx, w, idx, stores, store.BoardState(state), inTx)
		return err
	})
	if err != nil {
		return false, err
	}
	return lastChunk, nil
}

// writeChunk writes a chunk that is not done yet, inside tx, its
// solutions in INSERTs of insertBatchRows rows (insertbatch.go).
func writeChunk(ctx context.Context, tx *sql.Tx, w store.ChunkWrite, idx int, stores bool, state store.BoardState, inTx store.TxFunc[*sql.Tx]) (lastChunk bool, err error) {
	if err := lifecycle.CheckChunkTarget(w, state, stores); err != nil {
		return false, err
	}
	n := w.N()
	counts := w.Counts
	var squares *solver.SquareCounts
	if w.Solutions != nil {
		rows := chunkrows.New(ctx, w)
		defer rows.Close()
		var batch *insertBatch
		if stores {
			batch = &insertBatch{tx: tx, n: n}
			defer batch.close()
		}
		for rows.Next() {
			if batch == nil {
				continue
			}
			r := rows.Row()
			if err := batch.add(ctx, r.Key, r.Canonical, r.OrbitSize); err != nil {
				return false, err
			}
		}
		if err := rows.Err(); err != nil {
			return false, err
		}
		if batch != nil {
			if err := batch.flush(ctx); err != nil {
				return false, err
			}
		}
		counts = rows.Counts()
		sq := rows.SquareCounts()
		squares = &sq
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chunks
		SET total_solutions = ?, unique_solutions = ?,
		    orbit1_classes = ?, orbit2_classes = ?, orbit4_classes = ?, orbit8_classes = ?, done_at = ?
		WHERE n = ? AND idx = ?`, append(columns.CountArgs(counts), now(), n, idx)...); err != nil {
		return false, err
	}
	if inTx != nil {
		if err := inTx(ctx, tx); err != nil {
			return false, err
		}
	}
	if squares != nil {
		if err := addSquareCounts(ctx, tx, *squares); err != nil {
			return false, err
		}
	}
	err = tx.QueryRowContext(ctx, `UPDATE boards
		SET chunks_done = chunks_done + 1, solutions_done = solutions_done + ?, updated_at = ?
		WHERE n = ? RETURNING chunks_done = chunks_total`, int64(counts.Total), now(), n).Scan(&lastChunk)
	return lastChunk, err
}
