package store

import (
	"cmp"
	"context"

	"github.com/nqueens/nqueens/solver"
)

// Checked returns s behind the checks of every method's arguments: bad
// input is EINVALID, with the same message whatever the backend, and
// reaches no database. The backends' Open return their queries behind it,
// so that each of their methods starts at its SQL.
func Checked(s Store) Store {
	if c, ok := s.(checked); ok {
		return c
	}
	return checked{s}
}

// checked checks the arguments, then calls the Store it embeds; methods
// without arguments to check (Boards, Workers, Ping, Close) are its own.
type checked struct{ Store }

func (c checked) Board(ctx context.Context, n int) (Board, error) {
	if err := checkN(n); err != nil {
		return Board{}, err
	}
	return c.Store.Board(ctx, n)
}

func (c checked) RequestBoard(ctx context.Context, n int) (Board, bool, error) {
	if err := checkN(n); err != nil {
		return Board{}, false, err
	}
	return c.Store.RequestBoard(ctx, n)
}

func (c checked) PlanBoard(ctx context.Context, plan BoardPlan, onClaim PlanTxFunc) (Board, bool, error) {
	if err := checkPlan(plan); err != nil {
		return Board{}, false, err
	}
	return c.Store.PlanBoard(ctx, plan, onClaim)
}

func (c checked) Chunks(ctx context.Context, n int) ([]ChunkRecord, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	return c.Store.Chunks(ctx, n)
}

func (c checked) WriteChunk(ctx context.Context, w ChunkWrite, inTx TxFunc) (bool, error) {
	if err := checkChunkWrite(w); err != nil {
		return false, err
	}
	return c.Store.WriteChunk(ctx, w, inTx)
}

func (c checked) TouchBoard(ctx context.Context, n int) error {
	if err := checkN(n); err != nil {
		return err
	}
	return c.Store.TouchBoard(ctx, n)
}

func (c checked) FinishBoard(ctx context.Context, n int) (Board, error) {
	if err := checkN(n); err != nil {
		return Board{}, err
	}
	return c.Store.FinishBoard(ctx, n)
}

func (c checked) FailBoard(ctx context.Context, n int, reason string) (Board, error) {
	if err := cmp.Or(checkN(n), checkReason(reason)); err != nil {
		return Board{}, err
	}
	return c.Store.FailBoard(ctx, n, reason)
}

func (c checked) SeeWorker(ctx context.Context, id string) error {
	if err := checkWorkerID(id); err != nil {
		return err
	}
	return c.Store.SeeWorker(ctx, id)
}

func (c checked) ForgetWorker(ctx context.Context, id string) error {
	if err := checkWorkerID(id); err != nil {
		return err
	}
	return c.Store.ForgetWorker(ctx, id)
}

func (c checked) Page(ctx context.Context, req PageRequest) ([]Solution, error) {
	if err := checkPage(req); err != nil {
		return nil, err
	}
	return c.Store.Page(ctx, req)
}

func (c checked) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (Solution, error) {
	if err := cmp.Or(checkN(n), checkRank(rank)); err != nil {
		return Solution{}, err
	}
	return c.Store.SolutionAt(ctx, n, rank, unique)
}

func (c checked) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	if err := cmp.Or(checkN(n), checkPlacement(n, p, "placement")); err != nil {
		return 0, err
	}
	return c.Store.Rank(ctx, n, p, unique)
}
