package graph

import (
	"context"
	"sync"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// lazySquareCounts are the statistics of one Board, read from the store
// by the first of its fields that asks (squareCounts and
// uniqueSquareCounts resolve concurrently).
type lazySquareCounts struct {
	once sync.Once
	s    *solver.SquareCounts // nil: not known
	err  error
}

// squareCounts returns the statistics of board b: nil while they are not
// known (the board is not done, or the store has none for it), an error
// when the store cannot answer. Only a done board has them, and they never
// change after: its answer may be cached; the others' may not.
func (r *Resolver) squareCounts(ctx context.Context, b *Board) (*solver.SquareCounts, error) {
	if b.row.State != store.Done {
		markVolatile(ctx)
		return nil, nil
	}
	b.squares.once.Do(func() {
		s, err := r.boards.SquareCounts(ctx, b.N)
		switch {
		case nqueens.ErrorCode(err) == nqueens.ENOTFOUND:
		case err != nil:
			b.squares.err = dependencyError(ctx, "reading the square counts from the store", err)
		default:
			b.squares.s = &s
		}
	})
	return b.squares.s, b.squares.err
}

// squareTable is one table of the statistics as GraphQL rows.
func squareTable(s *solver.SquareCounts, table func(*solver.SquareCounts) []uint64) [][]BigInt {
	if s == nil {
		return nil
	}
	out := make([][]BigInt, s.N)
	for r, row := range s.Rows(table(s)) {
		out[r] = make([]BigInt, len(row))
		for c, v := range row {
			out[r][c] = BigInt(v)
		}
	}
	return out
}
