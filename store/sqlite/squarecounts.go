package sqlite

import (
	"context"
	"database/sql"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// addSquareCounts adds a chunk's statistics to its board's rows of
// square_counts, creating them with the board's first chunk: one prepared
// upsert per square, N² of them, next to the thousands of solution rows
// of a chunk.
func addSquareCounts(ctx context.Context, tx *sql.Tx, s solver.SquareCounts) error {
	upsert, err := tx.PrepareContext(ctx, `INSERT INTO square_counts (n, row, col, solutions, unique_solutions)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (n, row, col) DO UPDATE
		SET solutions = solutions + excluded.solutions,
		    unique_solutions = unique_solutions + excluded.unique_solutions`)
	if err != nil {
		return err
	}
	defer upsert.Close()
	for i := range s.All {
		if _, err := upsert.ExecContext(ctx, s.N, i/s.N, i%s.N, int64(s.All[i]), int64(s.Unique[i])); err != nil {
			return err
		}
	}
	return nil
}

// SquareCounts returns the statistics of board N; see store.Reader. The
// board's row and its squares are read in one transaction of the read
// pool: one snapshot, whatever a writer commits meanwhile.
func (s *queries) SquareCounts(ctx context.Context, n int) (out solver.SquareCounts, err error) {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return solver.SquareCounts{}, err
	}
	defer tx.Rollback()
	b, err := board(ctx, tx, n)
	if err != nil {
		return solver.SquareCounts{}, err
	}
	if err := lifecycle.CheckSquareCountsKept(b); err != nil {
		return solver.SquareCounts{}, err
	}
	out = solver.NewSquareCounts(n)
	rows, err := tx.QueryContext(ctx, `SELECT row, col, solutions, unique_solutions FROM square_counts WHERE n = ?`, n)
	if err != nil {
		return solver.SquareCounts{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var row, col int
		var all, unique int64
		if err := rows.Scan(&row, &col, &all, &unique); err != nil {
			return solver.SquareCounts{}, err
		}
		out.All[row*n+col], out.Unique[row*n+col] = uint64(all), uint64(unique)
	}
	if err := rows.Err(); err != nil {
		return solver.SquareCounts{}, err
	}
	if err := lifecycle.CheckSquareCounts(b, out); err != nil {
		return solver.SquareCounts{}, err
	}
	return out, nil
}
