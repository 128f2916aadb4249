package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

const filteredCountColumns = `n, filter, state, last_error, total, unique_count, chunks_total, chunks_done, requested_at, finished_at`

func scanFilteredCount(row pgx.Row) (store.FilteredCount, error) {
	var fc store.FilteredCount
	var state string
	var total, unique *int64
	var finished *time.Time
	var lastError *string
	if err := row.Scan(&fc.N, &fc.Filter, &state, &lastError, &total, &unique, &fc.ChunksTotal, &fc.ChunksDone, &fc.RequestedAt, &finished); err != nil {
		return store.FilteredCount{}, err
	}
	fc.State = store.BoardState(state)
	if lastError != nil {
		fc.LastError = *lastError
	}
	if total != nil && unique != nil {
		fc.Total, fc.Unique = uint64(*total), uint64(*unique)
	}
	if finished != nil {
		fc.FinishedAt = *finished
	}
	return fc, nil
}

// filteredCount reads the row of (n, filter), with lock appended.
func filteredCount(ctx context.Context, q querier, n int, filter, lock string) (store.FilteredCount, error) {
	fc, err := scanFilteredCount(q.QueryRow(ctx, `SELECT `+filteredCountColumns+` FROM filtered_counts WHERE n = $1 AND filter = $2 `+lock, n, filter))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.FilteredCount{}, nqueens.Errorf(nqueens.ENOTFOUND, "no count of N=%d under the filter %q has been asked for", n, filter)
	}
	return fc, err
}

// FilteredCount returns the count of N under filter; see store.Reader.
func (s *queries) FilteredCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error) {
	filter := f.Key()
	return filteredCount(ctx, s.pool, n, filter, "")
}

// FilteredCountChunks returns the chunks' counts of a done count; see
// store.Reader.
func (s *queries) FilteredCountChunks(ctx context.Context, n int, f solver.Filter) ([]solver.Counts, error) {
	filter := f.Key()
	var out []solver.Counts
	err := s.inTxWith(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		fc, err := filteredCount(ctx, tx, n, filter, "")
		if err != nil {
			return err
		}
		if err := lifecycle.CheckFilteredCountDone(fc); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT idx, total, unique_count FROM filtered_count_chunks
			WHERE n = $1 AND filter = $2 ORDER BY idx`, n, filter)
		if err != nil {
			return err
		}
		out = make([]solver.Counts, fc.ChunksTotal)
		var idx int
		var total, unique int64
		_, err = pgx.ForEachRow(rows, []any{&idx, &total, &unique}, func() error {
			if idx < 0 || idx >= len(out) {
				return nqueens.Errorf(nqueens.EINTERNAL, "the count of N=%d under %q has a chunk %d of %d", n, filter, idx, len(out))
			}
			out[idx] = solver.Counts{Total: uint64(total), Unique: uint64(unique)}
			return nil
		})
		return err
	})
	return out, err
}

// RequestFilteredCount inserts the running row of the count unless it has
// one; see store.Writer.
func (s *queries) RequestFilteredCount(ctx context.Context, req store.FilteredCountRequest, onCreate store.FilteredCountTxFunc[pgx.Tx]) (fc store.FilteredCount, created bool, err error) {
	key := req.Filter.Key()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		fc, err = scanFilteredCount(tx.QueryRow(ctx, `INSERT INTO filtered_counts (n, filter, state, chunks_total)
			VALUES ($1, $2, 'running', $3) ON CONFLICT (n, filter) DO NOTHING
			RETURNING `+filteredCountColumns, req.N, key, req.Chunks))
		if errors.Is(err, pgx.ErrNoRows) {
			fc, err = filteredCount(ctx, tx, req.N, key, "FOR UPDATE")
			switch {
			case err != nil:
				return err
			case fc.ChunksTotal != req.Chunks:
				return nqueens.Errorf(nqueens.ECONFLICT, "the count of N=%d under %q was planned in %d chunks, not %d", req.N, key, fc.ChunksTotal, req.Chunks)
			case fc.State != store.Failed:
				return nil
			}
			// A failed count resumes with the chunks not written yet.
			fc, err = scanFilteredCount(tx.QueryRow(ctx, `UPDATE filtered_counts SET state = 'running', last_error = NULL
				WHERE n = $1 AND filter = $2 RETURNING `+filteredCountColumns, req.N, key))
			if err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		created = true
		if onCreate == nil {
			return nil
		}
		rows, err := tx.Query(ctx, `SELECT i FROM generate_series(0, $3::int - 1) AS i
			WHERE NOT EXISTS (SELECT FROM filtered_count_chunks WHERE n = $1 AND filter = $2 AND idx = i)
			ORDER BY i`, req.N, key, req.Chunks)
		if err != nil {
			return err
		}
		todo, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		return onCreate(ctx, tx, todo)
	})
	if err != nil {
		return store.FilteredCount{}, false, err
	}
	return fc, created, nil
}

// WriteFilteredChunk records one chunk's count; see store.Writer. The
// count's row is locked first, so the writers of one count take turns:
// the one that finds every chunk written sums them.
func (s *queries) WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite, inTx store.TxFunc[pgx.Tx]) (fc store.FilteredCount, err error) {
	key := w.Filter.Key()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		fc, err = filteredCount(ctx, tx, w.N, key, "FOR UPDATE")
		if err != nil {
			return err
		}
		if w.Index >= fc.ChunksTotal {
			return nqueens.Errorf(nqueens.EINVALID, "the count of N=%d under %q has chunks 0 to %d, got %d", w.N, key, fc.ChunksTotal-1, w.Index)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO filtered_count_chunks (n, filter, idx, total, unique_count)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (n, filter, idx) DO NOTHING`,
			w.N, key, w.Index, int64(w.Counts.Total), int64(w.Counts.Unique))
		if err != nil {
			return err
		}
		if inTx != nil {
			if err := inTx(ctx, tx); err != nil {
				return err
			}
		}
		if tag.RowsAffected() == 0 {
			return nil // written before: counted once
		}
		fc, err = scanFilteredCount(tx.QueryRow(ctx, `UPDATE filtered_counts AS f
			SET chunks_done = f.chunks_done + 1,
			    state = CASE WHEN f.chunks_done + 1 = f.chunks_total THEN 'done' ELSE f.state END,
			    total = CASE WHEN f.chunks_done + 1 = f.chunks_total THEN s.total END,
			    unique_count = CASE WHEN f.chunks_done + 1 = f.chunks_total THEN s.unique_count END,
			    finished_at = CASE WHEN f.chunks_done + 1 = f.chunks_total THEN now() END,
			    last_error = CASE WHEN f.chunks_done + 1 = f.chunks_total THEN NULL ELSE f.last_error END
			FROM (SELECT sum(total)::bigint AS total, sum(unique_count)::bigint AS unique_count
			      FROM filtered_count_chunks WHERE n = $1 AND filter = $2) AS s
			WHERE f.n = $1 AND f.filter = $2
			RETURNING f.n, f.filter, f.state, f.last_error, f.total, f.unique_count, f.chunks_total, f.chunks_done, f.requested_at, f.finished_at`,
			w.N, key))
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
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		fc, err = filteredCount(ctx, tx, n, filter, "FOR UPDATE")
		switch {
		case err != nil:
			return err
		case fc.State == store.Done:
			return nqueens.Errorf(nqueens.ECONFLICT, "the count of N=%d under %q is done: it cannot fail", n, filter)
		case fc.State == store.Failed:
			return nil
		}
		fc, err = scanFilteredCount(tx.QueryRow(ctx, `UPDATE filtered_counts SET state = 'failed', last_error = $3
			WHERE n = $1 AND filter = $2 RETURNING `+filteredCountColumns, n, filter, reason))
		return err
	})
	if err != nil {
		return store.FilteredCount{}, err
	}
	return fc, nil
}
