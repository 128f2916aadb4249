package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

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

func scanBoard(row pgx.Row) (store.Board, error) {
	var (
		b                   store.Board
		state               string
		counts              columns.Counts
		solutionsDone       int64
		started, finished   *time.Time
		duration            *float64
		lastError           *string
		requestedBy         *string
		n, depth            int16
		chunksTot, chunksOK int32
	)
	dest := append([]any{&n, &state, &b.StoresSolutions}, counts.Dest()...)
	dest = append(dest, &depth, &b.Tasks, &chunksTot, &chunksOK, &solutionsDone,
		&started, &finished, &duration, &b.SolverVersion, &lastError, &requestedBy, &b.UpdatedAt)
	if err := row.Scan(dest...); err != nil {
		return store.Board{}, err
	}
	b.N, b.State, b.Counts = int(n), store.BoardState(state), counts.Counts()
	b.ChunkDepth, b.ChunksTotal, b.ChunksDone = int(depth), int(chunksTot), int(chunksOK)
	b.SolutionsDone = uint64(solutionsDone)
	if started != nil {
		b.StartedAt = started.UTC()
	}
	if finished != nil {
		b.FinishedAt = finished.UTC()
	}
	if duration != nil {
		b.Duration = time.Duration(*duration * float64(time.Second))
	}
	if lastError != nil {
		b.LastError = *lastError
	}
	if requestedBy != nil {
		b.RequestedBy = *requestedBy
	}
	b.UpdatedAt = b.UpdatedAt.UTC()
	return b, nil
}

// Board returns the row of N.
func (s *queries) Board(ctx context.Context, n int) (store.Board, error) {
	return board(ctx, s.pool, n, "")
}

// querier is what pool and transaction have in common.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// board reads the row of N, with lock appended to the query (e.g. FOR
// UPDATE) when not empty.
func board(ctx context.Context, q querier, n int, lock string) (store.Board, error) {
	b, err := scanBoard(q.QueryRow(ctx, `SELECT `+boardColumns+` FROM boards WHERE n = $1 `+lock, n))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Board{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d has not been requested", n)
	}
	return b, err
}

// Boards returns the board rows in states (all when none), by ascending N.
func (s *queries) Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error) {
	names := make([]string, len(states))
	for i, st := range states {
		names[i] = string(st)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+boardColumns+` FROM boards
		WHERE cardinality($1::text[]) = 0 OR state = ANY($1) ORDER BY n`, names)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Board, error) { return scanBoard(r) })
	return out, err
}

// RequestBoard inserts a pending row for N unless it has one.
func (s *queries) RequestBoard(ctx context.Context, req store.BoardRequest) (store.Board, bool, error) {
	b, err := scanBoard(s.pool.QueryRow(ctx, insertBoard+` RETURNING `+boardColumns, req.N, req.RequestedBy))
	if errors.Is(err, pgx.ErrNoRows) {
		b, err = board(ctx, s.pool, req.N, "")
		return b, false, err
	}
	return b, err == nil, err
}

// insertBoard makes the pending row of N ($1) requested by $2 (NULL for
// ""), unless N has a row: the first requester is kept.
const insertBoard = `INSERT INTO boards (n, requested_by) VALUES ($1, NULLIF($2, '')) ON CONFLICT (n) DO NOTHING`

// PlanBoard claims a board for computing; see store.Writer.
func (s *queries) PlanBoard(ctx context.Context, plan store.BoardPlan, onClaim store.PlanTxFunc[pgx.Tx]) (b store.Board, claimed bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// A pending row first, so that concurrent planners meet on the row
		// lock below instead of racing to insert.
		if _, err := tx.Exec(ctx, insertBoard, plan.N, plan.RequestedBy); err != nil {
			return err
		}
		if b, err = board(ctx, tx, plan.N, "FOR UPDATE"); err != nil {
			return err
		}
		step, err := lifecycle.DecidePlan(b, plan)
		var todo []store.ChunkRecord
		switch {
		case err != nil || step == lifecycle.KeepBoard:
			return err
		case step == lifecycle.ResumeBoard:
			b, err = scanBoard(tx.QueryRow(ctx, `UPDATE boards
				SET state = 'running', last_error = NULL, solver_version = $2, updated_at = now()
				WHERE n = $1 RETURNING `+boardColumns, plan.N, plan.SolverVersion))
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
			b, err = scanBoard(tx.QueryRow(ctx, `UPDATE boards
				SET state = 'running', stores_solutions = $2, chunk_depth = $3, chunk_kind = $4, chunks_total = $5,
				    solver_version = $6, started_at = now(), updated_at = now()
				WHERE n = $1 RETURNING `+boardColumns,
				plan.N, plan.StoresSolutions, plan.ChunkDepth, columns.ChunkKind(plan), len(todo), plan.SolverVersion))
			if err != nil {
				return err
			}
			_, err = tx.CopyFrom(ctx, pgx.Identifier{"chunks"}, []string{"n", "idx", "prefix", "task"},
				pgx.CopyFromSlice(len(todo), func(i int) ([]any, error) {
					prefix, task := columns.ChunkKey(todo[i])
					return []any{plan.N, i, prefix, task}, nil
				}))
			if err != nil {
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

// TouchBoard sets a running board's updated_at; see store.Writer.
func (s *queries) TouchBoard(ctx context.Context, n int) error {
	tag, err := s.pool.Exec(ctx, `UPDATE boards SET updated_at = now() WHERE n = $1 AND state = 'running'`, n)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		_, err = board(ctx, s.pool, n, "")
		return err
	}
	return nil
}

// Chunks returns the chunk rows of N in order.
func (s *queries) Chunks(ctx context.Context, n int) ([]store.ChunkRecord, error) {
	out, err := chunks(ctx, s.pool, n, "")
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// A pending board has no chunks yet; an unknown one is not found.
		if _, err := board(ctx, s.pool, n, ""); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rowQuerier is what pool and transaction have in common for queries of
// many rows.
type rowQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// chunks reads the chunk rows of N in order, with filter (e.g. "AND
// done_at IS NULL") appended to the WHERE clause.
func chunks(ctx context.Context, q rowQuerier, n int, filter string) ([]store.ChunkRecord, error) {
	rows, err := q.Query(ctx, `SELECT idx, prefix, task,
		total_solutions, unique_solutions, orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, done_at
		FROM chunks WHERE n = $1 `+filter+` ORDER BY idx`, n)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ChunkRecord, error) {
		c := store.ChunkRecord{N: n}
		var prefix, task []byte
		var counts columns.Counts
		var doneAt *time.Time
		dest := append([]any{&c.Index, &prefix, &task}, counts.Dest()...)
		if err := r.Scan(append(dest, &doneAt)...); err != nil {
			return c, err
		}
		c.Counts = counts.Counts()
		if doneAt != nil {
			c.DoneAt = doneAt.UTC()
		}
		return c, columns.SetChunkKey(&c, prefix, task)
	})
}

// FinishBoard marks a board done with counts summed from its chunks.
func (s *queries) FinishBoard(ctx context.Context, n int) (store.Board, error) {
	var b store.Board
	var inconsistent error
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if b, err = board(ctx, tx, n, "FOR UPDATE"); err != nil {
			return err
		}
		if err := lifecycle.CheckFinish(b); err != nil || b.State == store.Done {
			return err
		}
		var doneChunks int
		var counts columns.Counts
		err = tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE done_at IS NOT NULL),
			sum(total_solutions), sum(unique_solutions),
			sum(orbit1_classes), sum(orbit2_classes), sum(orbit4_classes), sum(orbit8_classes)
			FROM chunks WHERE n = $1`, n).Scan(append([]any{&doneChunks}, counts.Dest()...)...)
		if err != nil {
			return err
		}
		var total solver.Counts
		if total, inconsistent = lifecycle.CheckSums(b, doneChunks, counts.Counts()); inconsistent != nil {
			b, err = scanBoard(tx.QueryRow(ctx, `UPDATE boards SET state = 'failed', last_error = $2, updated_at = now()
				WHERE n = $1 RETURNING `+boardColumns, n, inconsistent.Error()))
			return err
		}
		// Prefix sums: the solutions (and canonical ones) in all chunks
		// before each chunk, for SolutionAt and Rank.
		if _, err := tx.Exec(ctx, `UPDATE chunks AS c
			SET solutions_before = s.solutions_before, unique_before = s.unique_before
			FROM (SELECT idx,
			             sum(total_solutions) OVER w - total_solutions AS solutions_before,
			             sum(unique_solutions) OVER w - unique_solutions AS unique_before
			      FROM chunks WHERE n = $1 WINDOW w AS (ORDER BY idx)) AS s
			WHERE c.n = $1 AND c.idx = s.idx`, n); err != nil {
			return err
		}
		args := append([]any{n}, columns.CountArgs(total)...)
		b, err = scanBoard(tx.QueryRow(ctx, `UPDATE boards
			SET state = 'done', total_solutions = $2, unique_solutions = $3,
			    orbit1_classes = $4, orbit2_classes = $5, orbit4_classes = $6, orbit8_classes = $7,
			    finished_at = now(), duration_seconds = extract(epoch FROM now() - started_at),
			    last_error = NULL, updated_at = now()
			WHERE n = $1 RETURNING `+boardColumns, args...))
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
func (s *queries) FailBoard(ctx context.Context, n int, reason string) (store.Board, error) {
	b, err := scanBoard(s.pool.QueryRow(ctx, `UPDATE boards SET state = 'failed', last_error = $2, updated_at = now()
		WHERE n = $1 AND state <> 'done' RETURNING `+boardColumns, n, reason))
	if errors.Is(err, pgx.ErrNoRows) {
		// No row, or a done one.
		if _, err := board(ctx, s.pool, n, ""); err != nil {
			return store.Board{}, err
		}
		return store.Board{}, nqueens.Errorf(nqueens.ECONFLICT, "N=%d is done; a done board cannot fail", n)
	}
	return b, err
}

// inTx runs f in a transaction, committing when it returns nil.
func (s *queries) inTx(ctx context.Context, f func(tx pgx.Tx) error) error {
	return s.inTxWith(ctx, pgx.TxOptions{}, f)
}

// inTxWith is inTx with the transaction's options.
func (s *queries) inTxWith(ctx context.Context, opts pgx.TxOptions, f func(tx pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	// A rollback after a commit does nothing; after a cancel it must still
	// reach the server (or close the connection, which also rolls back).
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := f(tx); err != nil {
		// A cancelled context can surface as a driver error (a closed
		// connection); keep the cancellation findable with errors.Is.
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = errors.Join(ctxErr, err)
		}
		return err
	}
	return tx.Commit(ctx)
}
