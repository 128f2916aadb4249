package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/columns"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// boardColumns is the column list scanBoard reads.
const boardColumns = `n, state, stores_solutions,
	total_solutions, unique_solutions, orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes,
	chunk_depth, chunk_kind = 'task', chunks_total, chunks_done, solutions_done,
	started_at, finished_at, duration_seconds, solver_version, last_error, requested_by, updated_at`

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface{ Scan(dest ...any) error }

func scanBoard(row scanner) (store.Board, error) {
	var (
		b                          store.Board
		state                      string
		counts                     columns.Counts
		solutionsDone              int64
		started, finished, updated sql.NullString
		duration                   sql.NullFloat64
		lastError, requestedBy     sql.NullString
	)
	dest := append([]any{&b.N, &state, &b.StoresSolutions}, counts.Dest()...)
	dest = append(dest, &b.ChunkDepth, &b.Tasks, &b.ChunksTotal, &b.ChunksDone, &solutionsDone,
		&started, &finished, &duration, &b.SolverVersion, &lastError, &requestedBy, &updated)
	if err := row.Scan(dest...); err != nil {
		return store.Board{}, err
	}
	b.State, b.Counts, b.SolutionsDone = store.BoardState(state), counts.Counts(), uint64(solutionsDone)
	b.Duration = time.Duration(duration.Float64 * float64(time.Second))
	b.LastError, b.RequestedBy = lastError.String, requestedBy.String
	var err error
	if b.StartedAt, err = parseTime(started); err == nil {
		if b.FinishedAt, err = parseTime(finished); err == nil {
			b.UpdatedAt, err = parseTime(updated)
		}
	}
	return b, err
}

// querier is what the pools and a transaction have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// board reads the row of N.
func board(ctx context.Context, q querier, n int) (store.Board, error) {
	b, err := scanBoard(q.QueryRowContext(ctx, `SELECT `+boardColumns+` FROM boards WHERE n = ?`, n))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Board{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has not been requested", n)
	}
	return b, err
}

// Board returns the row of N.
func (s *queries) Board(ctx context.Context, n int) (store.Board, error) {
	return board(ctx, s.reader, n)
}

// Boards returns the board rows in states (all when none), by ascending
// N. The states go as one JSON array, so that the query's text is the same
// whatever their number.
func (s *queries) Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error) {
	names, err := json.Marshal(append([]store.BoardState{}, states...))
	if err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+boardColumns+` FROM boards
		WHERE json_array_length(?1) = 0 OR state IN (SELECT value FROM json_each(?1)) ORDER BY n`, string(names))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Board
	for rows.Next() {
		b, err := scanBoard(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// RequestBoard inserts a pending row for N unless it has one.
func (s *queries) RequestBoard(ctx context.Context, req store.BoardRequest) (b store.Board, created bool, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, insertBoard, req.N, req.RequestedBy, now())
		if err != nil {
			return err
		}
		inserted, err := res.RowsAffected()
		if err != nil {
			return err
		}
		created = inserted == 1
		b, err = board(ctx, tx, req.N)
		return err
	})
	return b, created, err
}

// insertBoard makes the pending row of N requested by a name (NULL for
// ""), updated at a time, unless N has a row: the first requester is
// kept.
const insertBoard = `INSERT INTO boards (n, requested_by, updated_at) VALUES (?, NULLIF(?, ''), ?) ON CONFLICT (n) DO NOTHING`

// PlanBoard claims a board for computing; see store.Writer.
func (s *queries) PlanBoard(ctx context.Context, plan store.BoardPlan, onClaim store.PlanTxFunc[*sql.Tx]) (b store.Board, claimed bool, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		t := now()
		if _, err := tx.ExecContext(ctx, insertBoard, plan.N, plan.RequestedBy, t); err != nil {
			return err
		}
		if b, err = board(ctx, tx, plan.N); err != nil {
			return err
		}
		step, err := lifecycle.DecidePlan(b, plan)
		var todo []store.ChunkRecord
		switch {
		case err != nil || step == lifecycle.KeepBoard:
			return err
		case step == lifecycle.ResumeBoard:
			b, err = scanBoard(tx.QueryRowContext(ctx, `UPDATE boards
				SET state = 'running', last_error = NULL, solver_version = ?, updated_at = ?
				WHERE n = ? RETURNING `+boardColumns, plan.SolverVersion, t, plan.N))
			if err != nil {
				return err
			}
			if todo, err = chunks(ctx, tx, plan.N, "AND done_at IS NULL"); err != nil {
				return err
			}
		default:
			if todo, err = lifecycle.PlannedChunks(plan); err != nil {
				return err
			}
			b, err = scanBoard(tx.QueryRowContext(ctx, `UPDATE boards
				SET state = 'running', stores_solutions = ?, chunk_depth = ?, chunk_kind = ?, chunks_total = ?,
				    solver_version = ?, started_at = ?, updated_at = ?
				WHERE n = ? RETURNING `+boardColumns,
				plan.StoresSolutions, plan.ChunkDepth, columns.ChunkKind(plan), len(todo), plan.SolverVersion, t, t, plan.N))
			if err != nil {
				return err
			}
			if err := insertChunks(ctx, tx, todo); err != nil {
				return err
			}
		}
		claimed = true
		if onClaim != nil {
			return onClaim(ctx, tx, b, todo)
		}
		return nil
	})
	if err != nil {
		return store.Board{}, false, err
	}
	return b, claimed, nil
}

// insertChunks inserts the rows of a new plan's chunks.
func insertChunks(ctx context.Context, tx *sql.Tx, todo []store.ChunkRecord) error {
	insert, err := tx.PrepareContext(ctx, `INSERT INTO chunks (n, idx, prefix, task) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	for _, c := range todo {
		prefix, task := columns.ChunkKey(c)
		if _, err := insert.ExecContext(ctx, c.N, c.Index, prefix, task); err != nil {
			return err
		}
	}
	return nil
}

// TouchBoard sets a running board's updated_at; see store.Writer.
func (s *queries) TouchBoard(ctx context.Context, n int) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE boards SET updated_at = ? WHERE n = ? AND state = 'running'`, now(), n)
	if err != nil {
		return err
	}
	if touched, err := res.RowsAffected(); err != nil || touched == 0 {
		if err != nil {
			return err
		}
		_, err = board(ctx, s.reader, n)
		return err
	}
	return nil
}

// Chunks returns the chunk rows of N in order.
func (s *queries) Chunks(ctx context.Context, n int) ([]store.ChunkRecord, error) {
	out, err := chunks(ctx, s.reader, n, "")
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// A pending board has no chunks yet; an unknown one is not found.
		if _, err := board(ctx, s.reader, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rowQuerier is what the pools and a transaction have in common for
// queries of many rows.
type rowQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// chunks reads the chunk rows of N in order, with filter (e.g. "AND
// done_at IS NULL") appended to the WHERE clause.
func chunks(ctx context.Context, q rowQuerier, n int, filter string) ([]store.ChunkRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT idx, prefix, task,
		total_solutions, unique_solutions, orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, done_at
		FROM chunks WHERE n = ? `+filter+` ORDER BY idx`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ChunkRecord
	for rows.Next() {
		c := store.ChunkRecord{N: n}
		var prefix, task []byte
		var counts columns.Counts
		var doneAt sql.NullString
		dest := append([]any{&c.Index, &prefix, &task}, counts.Dest()...)
		if err := rows.Scan(append(dest, &doneAt)...); err != nil {
			return nil, err
		}
		c.Counts = counts.Counts()
		if c.DoneAt, err = parseTime(doneAt); err != nil {
			return nil, err
		}
		if err := columns.SetChunkKey(&c, prefix, task); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// FinishBoard marks a board done with counts summed from its chunks.
func (s *queries) FinishBoard(ctx context.Context, n int) (store.Board, error) {
	var b store.Board
	var inconsistent error
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if b, err = board(ctx, tx, n); err != nil {
			return err
		}
		if err := lifecycle.CheckFinish(b); err != nil || b.State == store.Done {
			return err
		}
		var doneChunks int
		var counts columns.Counts
		err = tx.QueryRowContext(ctx, `SELECT count(done_at),
			sum(total_solutions), sum(unique_solutions),
			sum(orbit1_classes), sum(orbit2_classes), sum(orbit4_classes), sum(orbit8_classes)
			FROM chunks WHERE n = ?`, n).Scan(append([]any{&doneChunks}, counts.Dest()...)...)
		if err != nil {
			return err
		}
		t := now()
		var total solver.Counts
		if total, inconsistent = lifecycle.CheckSums(b, doneChunks, counts.Counts()); inconsistent != nil {
			b, err = scanBoard(tx.QueryRowContext(ctx, `UPDATE boards SET state = 'failed', last_error = ?, updated_at = ?
				WHERE n = ? RETURNING `+boardColumns, inconsistent.Error(), t, n))
			return err
		}
		// Prefix sums: the solutions (and canonical ones) in all chunks
		// before each chunk, for SolutionAt and Rank.
		if _, err := tx.ExecContext(ctx, `UPDATE chunks
			SET solutions_before = s.solutions_before, unique_before = s.unique_before
			FROM (SELECT idx,
			             sum(total_solutions) OVER w - total_solutions AS solutions_before,
			             sum(unique_solutions) OVER w - unique_solutions AS unique_before
			      FROM chunks WHERE n = ?1 WINDOW w AS (ORDER BY idx)) AS s
			WHERE chunks.n = ?1 AND chunks.idx = s.idx`, n); err != nil {
			return err
		}
		finished, err := time.Parse(timeLayout, t)
		if err != nil {
			return err
		}
		args := append(columns.CountArgs(total), t, finished.Sub(b.StartedAt).Seconds(), t, n)
		b, err = scanBoard(tx.QueryRowContext(ctx, `UPDATE boards
			SET state = 'done', total_solutions = ?, unique_solutions = ?,
			    orbit1_classes = ?, orbit2_classes = ?, orbit4_classes = ?, orbit8_classes = ?,
			    finished_at = ?, duration_seconds = ?, last_error = NULL, updated_at = ?
			WHERE n = ? RETURNING `+boardColumns, args...))
		return err
	})
	if err != nil {
		return store.Board{}, err
	}
	if inconsistent != nil {
		return b, inconsistent
	}
	return b, nil
}

// FailBoard marks a board failed.
func (s *queries) FailBoard(ctx context.Context, n int, reason string) (b store.Board, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if b, err = board(ctx, tx, n); err != nil {
			return err
		}
		if b.State == store.Done {
			return nqueens.Errorf(nqueens.ECONFLICT, "N=%d is done; a done board cannot fail", n)
		}
		b, err = scanBoard(tx.QueryRowContext(ctx, `UPDATE boards SET state = 'failed', last_error = ?, updated_at = ?
			WHERE n = ? RETURNING `+boardColumns, reason, now(), n))
		return err
	})
	if err != nil {
		return store.Board{}, err
	}
	return b, nil
}
