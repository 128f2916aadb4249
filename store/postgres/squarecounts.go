package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/internal/lifecycle"
)

// addSquareCounts adds a chunk's statistics to its board's rows of
// square_counts, creating them with the board's first chunk: one
// statement for the N² squares, in row-major order, the same in every
// writer, so that two writers of a board lock its rows in the same order.
func addSquareCounts(ctx context.Context, tx pgx.Tx, s solver.SquareCounts) error {
	all, unique := make([]int64, len(s.All)), make([]int64, len(s.Unique))
	for i := range s.All {
		all[i], unique[i] = int64(s.All[i]), int64(s.Unique[i])
	}
	_, err := tx.Exec(ctx, `INSERT INTO square_counts (n, row, col, solutions, unique_solutions)
		SELECT $1::int, (i - 1) / $1::int, (i - 1) % $1::int, a, u
		FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS t (a, u, i)
		ORDER BY i
		ON CONFLICT (n, row, col) DO UPDATE
		SET solutions = square_counts.solutions + excluded.solutions,
		    unique_solutions = square_counts.unique_solutions + excluded.unique_solutions`,
		s.N, all, unique)
	return err
}

// SquareCounts returns the statistics of board N; see store.Reader. The
// board's row and its squares are read in one snapshot.
func (s *queries) SquareCounts(ctx context.Context, n int) (out solver.SquareCounts, err error) {
	err = s.inTxWith(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		b, err := board(ctx, tx, n, "")
		if err != nil {
			return err
		}
		if err := lifecycle.CheckSquareCountsKept(b); err != nil {
			return err
		}
		out = solver.NewSquareCounts(n)
		rows, err := tx.Query(ctx, `SELECT row, col, solutions, unique_solutions FROM square_counts WHERE n = $1`, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var row, col int
			var all, unique int64
			if err := rows.Scan(&row, &col, &all, &unique); err != nil {
				return err
			}
			out.All[row*n+col], out.Unique[row*n+col] = uint64(all), uint64(unique)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return lifecycle.CheckSquareCounts(b, out)
	})
	if err != nil {
		return solver.SquareCounts{}, err
	}
	return out, nil
}
