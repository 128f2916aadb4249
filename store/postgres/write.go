package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/chunkrows"
	"github.com/nqueens/nqueens/store/internal/columns"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// WriteChunk stores one computed chunk; see store.Writer.
//
// The chunk row is locked first (FOR UPDATE), so two writers of the same
// chunk take turns and the second finds it done and writes nothing: that
// check is the whole of the idempotence, and lets the solutions go
// straight into their table by COPY (no staging table, no ON CONFLICT).
func (s *queries) WriteChunk(ctx context.Context, w store.ChunkWrite, inTx store.TxFunc[pgx.Tx]) (lastChunk bool, err error) {
	n := w.N()
	keyColumn, key := columns.WriteKey(w)
	// A chunk's commit need not wait for its WAL to reach the disk: a crash
	// can lose only whole chunks committed in the last moments, together
	// with their jobs' completions (inTx, same transaction), so they are
	// computed again; nothing is ever half written. Saving one disk flush
	// per chunk is a tenth of a bulk load's time. FinishBoard commits
	// synchronously, which flushes them all. The setting goes with BEGIN,
	// in one round trip: a chunk of a counts-only board is a few of them.
	asyncCommit := pgx.TxOptions{BeginQuery: `BEGIN; SET LOCAL synchronous_commit = off`}
	err = s.inTxWith(ctx, asyncCommit, func(tx pgx.Tx) error {
		var idx int
		var done, stores bool
		var state string
		err := tx.QueryRow(ctx, `SELECT c.idx, c.done_at IS NOT NULL, b.stores_solutions, b.state
			FROM chunks AS c JOIN boards AS b ON b.n = c.n
			WHERE c.n = $1 AND c.`+keyColumn+` = $2
			FOR UPDATE OF c`, n, key).Scan(&idx, &done, &stores, &state)
		if errors.Is(err, pgx.ErrNoRows) {
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

// writeChunk writes a chunk that is not done yet, inside tx.
func writeChunk(ctx context.Context, tx pgx.Tx, w store.ChunkWrite, idx int, stores bool, state store.BoardState, inTx store.TxFunc[pgx.Tx]) (lastChunk bool, err error) {
	if err := lifecycle.CheckChunkTarget(w, state, stores); err != nil {
		return false, err
	}
	n := w.N()
	counts := w.Counts
	var squares *solver.SquareCounts
	if w.Solutions != nil {
		rows := chunkrows.New(ctx, w)
		if stores {
			r := newCopyReader(rows, n)
			_, err = tx.Conn().PgConn().CopyFrom(ctx, r, copySolutions)
			r.Close()
		} else {
			for rows.Next() {
			}
			rows.Close()
		}
		// The rows' own error (bad input, cancelled context) explains a
		// failed COPY better than the COPY's error does.
		if rows.Err() != nil {
			return false, rows.Err()
		}
		if err != nil {
			return false, err
		}
		counts = rows.Counts()
		sq := rows.SquareCounts()
		squares = &sq
	}
	if _, err := tx.Exec(ctx, `UPDATE chunks
		SET total_solutions = $3, unique_solutions = $4,
		    orbit1_classes = $5, orbit2_classes = $6, orbit4_classes = $7, orbit8_classes = $8, done_at = now()
		WHERE n = $1 AND idx = $2`, append([]any{n, idx}, columns.CountArgs(counts)...)...); err != nil {
		return false, err
	}
	if inTx != nil {
		if err := inTx(ctx, tx); err != nil {
			return false, err
		}
	}
	// Every writer of the board adds to the same rows of square_counts,
	// each holding their locks to its commit: so this comes after inTx,
	// next to the board row's update, which serialises them anyway.
	if squares != nil {
		if err := addSquareCounts(ctx, tx, *squares); err != nil {
			return false, err
		}
	}
	// Deciding "last" here, under the board row's lock, makes exactly one
	// writer see it. Every writer of the board takes that lock in turn,
	// from here to its commit: this is the transaction's last statement.
	err = tx.QueryRow(ctx, `UPDATE boards
		SET chunks_done = chunks_done + 1, solutions_done = solutions_done + $2, updated_at = now()
		WHERE n = $1 RETURNING chunks_done = chunks_total`, n, int64(counts.Total)).Scan(&lastChunk)
	return lastChunk, err
}
