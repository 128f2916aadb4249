package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

const filteredCountColumns = `n, filter, state, last_error, total, unique_count, chunks_total, chunks_done, requested_at, finished_at`

func scanFilteredCount(row *sql.Row) (store.FilteredCount, error) {
	var fc store.FilteredCount
	var state string
	var total, unique sql.NullInt64
	var requested, finished, lastError sql.NullString
	if err := row.Scan(&fc.N, &fc.Filter, &state, &lastError, &total, &unique, &fc.ChunksTotal, &fc.ChunksDone, &requested, &finished); err != nil {
		return store.FilteredCount{}, err
	}
	fc.State = store.BoardState(state)
	fc.LastError = lastError.String
	if total.Valid && unique.Valid {
		fc.Total, fc.Unique = uint64(total.Int64), uint64(unique.Int64)
	}
	var err error
	if fc.RequestedAt, err = parseTime(requested); err != nil {
		return store.FilteredCount{}, err
	}
	if fc.FinishedAt, err = parseTime(finished); err != nil {
		return store.FilteredCount{}, err
	}
	return fc, nil
}

// filteredCount reads the row of (n, filter).
func filteredCount(ctx context.Context, q querier, n int, filter string) (store.FilteredCount, error) {
	fc, err := scanFilteredCount(q.QueryRowContext(ctx, `SELECT `+filteredCountColumns+` FROM filtered_counts WHERE n = ? AND filter = ?`, n, filter))
	if errors.Is(err, sql.ErrNoRows) {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.ENOTFOUND, "no count of N=%d under the filter %q has been asked for", n, filter)
	}
	return fc, err
}

// FilteredCount returns the count of N under filter; see store.Reader.
func (s *queries) FilteredCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error) {
	filter := f.Key()
	return filteredCount(ctx, s.reader, n, filter)
}

// FilteredCountChunks returns the chunks' counts of a done count; see
// store.Reader. The count's row and its chunks are read in one
// transaction.
func (s *queries) FilteredCountChunks(ctx context.Context, n int, f solver.Filter) ([]solver.Counts, error) {
	filter := f.Key()
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	fc, err := filteredCount(ctx, tx, n, filter)
	if err != nil {
		return nil, err
	}
	if err := lifecycle.CheckFilteredCountDone(fc); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT idx, total, unique_count FROM filtered_count_chunks
		WHERE n = ? AND filter = ? ORDER BY idx`, n, filter)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]solver.Counts, fc.ChunksTotal)
	for rows.Next() {
		var idx int
		var total, unique int64
		if err := rows.Scan(&idx, &total, &unique); err != nil {
			return nil, err
		}
		if idx < 0 || idx >= len(out) {
			return nil, nqueens.Errorf(nqueens.EINTERNAL, "the count of N=%d under %q has a chunk %d of %d", n, filter, idx, len(out))
		}
		out[idx] = solver.Counts{Total: uint64(total), Unique: uint64(unique)}
	}
	return out, rows.Err()
}

// RequestFilteredCount inserts the running row of the count unless it has
// one; see store.Writer. Write transactions are serialised, so reading
// first is safe.
func (s *queries) RequestFilteredCount(ctx context.Context, req store.FilteredCountRequest, onCreate store.FilteredCountTxFunc[*sql.Tx]) (fc store.FilteredCount, created bool, err error) {
	key := req.Filter.Key()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		fc, err = filteredCount(ctx, tx, req.N, key)
		switch {
		case err == nil && fc.ChunksTotal != req.Chunks:
			return nqueens.Errorf(nqueens.ECONFLICT, "the count of N=%d under %q was planned in %d chunks, not %d", req.N, key, fc.ChunksTotal, req.Chunks)
		case err == nil && fc.State != store.Failed:
			return nil
		case err == nil:
			// A failed count resumes with the chunks not written yet.
			if _, err := tx.ExecContext(ctx, `UPDATE filtered_counts SET state = 'running', last_error = NULL
				WHERE n = ? AND filter = ?`, req.N, key); err != nil {
				return err
			}
		case nqueens.ErrorCode(err) != nqueens.ENOTFOUND:
			return err
		default:
			if _, err := tx.ExecContext(ctx, `INSERT INTO filtered_counts (n, filter, state, chunks_total, requested_at)
				VALUES (?, ?, 'running', ?, ?)`, req.N, key, req.Chunks, now()); err != nil {
				return err
			}
		}
		if fc, err = filteredCount(ctx, tx, req.N, key); err != nil {
			return err
		}
		created = true
		if onCreate == nil {
			return nil
		}
		written := map[int]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT idx FROM filtered_count_chunks WHERE n = ? AND filter = ?`, req.N, key)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var idx int
			if err := rows.Scan(&idx); err != nil {
				return err
			}
			written[idx] = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var todo []int
		for i := range req.Chunks {
			if !written[i] {
				todo = append(todo, i)
			}
		}
		return onCreate(ctx, tx, todo)
	})
	if err != nil {
		return store.FilteredCount{}, false, err
	}
	return fc, created, nil
}

// WriteFilteredChunk records one chunk's count; see store.Writer. The
// write that finds every chunk written sums them, in its transaction.
func (s *queries) WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite, inTx store.TxFunc[*sql.Tx]) (fc store.FilteredCount, err error) {
	key := w.Filter.Key()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		fc, err = filteredCount(ctx, tx, w.N, key)
		if err != nil {
			return err
		}
		if w.Index >= fc.ChunksTotal {
			return nqueens.Errorf(nqueens.EINVALID, "the count of N=%d under %q has chunks 0 to %d, got %d", w.N, key, fc.ChunksTotal-1, w.Index)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO filtered_count_chunks (n, filter, idx, total, unique_count)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (n, filter, idx) DO NOTHING`,
			w.N, key, w.Index, int64(w.Counts.Total), int64(w.Counts.Unique))
		if err != nil {
			return err
		}
		if inTx != nil {
			if err := inTx(ctx, tx); err != nil {
				return err
			}
		}
		if added, err := res.RowsAffected(); err != nil || added == 0 {
			return err // written before: counted once
		}
		if fc.ChunksDone+1 < fc.ChunksTotal {
			_, err = tx.ExecContext(ctx, `UPDATE filtered_counts SET chunks_done = chunks_done + 1 WHERE n = ? AND filter = ?`, w.N, key)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE filtered_counts
				SET chunks_done = chunks_done + 1, state = 'done', last_error = NULL, finished_at = ?,
				    total = (SELECT sum(total) FROM filtered_count_chunks WHERE n = ? AND filter = ?),
				    unique_count = (SELECT sum(unique_count) FROM filtered_count_chunks WHERE n = ? AND filter = ?)
				WHERE n = ? AND filter = ?`, now(), w.N, key, w.N, key, w.N, key)
		}
		if err != nil {
			return err
		}
		fc, err = filteredCount(ctx, tx, w.N, key)
		return err
	})
	if err != nil {
		return store.FilteredCount{}, err
	}
	return fc, nil
}

// FailFilteredCount marks a running count failed; see store.Writer.
func (s *queries) FailFilteredCount(ctx context.Context, n int, f solver.Filter, reason string) (fc store.FilteredCount, err error) {
	filter := f.Key()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		fc, err = filteredCount(ctx, tx, n, filter)
		switch {
		case err != nil:
			return err
		case fc.State == store.Done:
			return nqueens.Errorf(nqueens.ECONFLICT, "the count of N=%d under %q is done: it cannot fail", n, filter)
		case fc.State == store.Failed:
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE filtered_counts SET state = 'failed', last_error = ? WHERE n = ? AND filter = ?`, reason, n, filter); err != nil {
			return err
		}
		fc, err = filteredCount(ctx, tx, n, filter)
		return err
	})
	if err != nil {
		return store.FilteredCount{}, err
	}
	return fc, nil
}
