package store

import (
	"cmp"
	"context"

	"github.com/nqueens/nqueens/solver"
)

// Checked returns s behind the one edge every call of a backend crosses:
// the arguments are checked first (bad input is nqueens.EINVALID, with the same
// message whatever the backend, and reaches no database), and every error
// s returns is classified by the backend's classify, so that callers get
// the codes they act on (nqueens.EUNAVAILABLE, nqueens.ECONFLICT, …) whichever path the
// error took. The backends' Open return their queries behind it, so that
// each of their methods starts at its SQL and classifies nothing itself.
func Checked(s Store, classify func(error) error) Store {
	return checked{s: s, classify: classify}
}

// checked is Checked's Store.
type checked struct {
	s        Store
	classify func(error) error
}

// err classifies an error of the backend.
func (c checked) err(err error) error {
	if err == nil {
		return nil
	}
	return c.classify(err)
}

func (c checked) Board(ctx context.Context, n int) (Board, error) {
	if err := checkN(n); err != nil {
		return Board{}, err
	}
	b, err := c.s.Board(ctx, n)
	return b, c.err(err)
}

func (c checked) Boards(ctx context.Context) ([]Board, error) {
	bs, err := c.s.Boards(ctx)
	return bs, c.err(err)
}

func (c checked) RequestBoard(ctx context.Context, req BoardRequest) (Board, bool, error) {
	if err := cmp.Or(checkN(req.N), checkRequestedBy(req.RequestedBy)); err != nil {
		return Board{}, false, err
	}
	b, created, err := c.s.RequestBoard(ctx, req)
	return b, created, c.err(err)
}

func (c checked) PlanBoard(ctx context.Context, plan BoardPlan, onClaim PlanTxFunc) (Board, bool, error) {
	if err := checkPlan(plan); err != nil {
		return Board{}, false, err
	}
	b, claimed, err := c.s.PlanBoard(ctx, plan, onClaim)
	return b, claimed, c.err(err)
}

func (c checked) Chunks(ctx context.Context, n int) ([]ChunkRecord, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	cs, err := c.s.Chunks(ctx, n)
	return cs, c.err(err)
}

func (c checked) WriteChunk(ctx context.Context, w ChunkWrite, inTx TxFunc) (bool, error) {
	if err := checkChunkWrite(w); err != nil {
		return false, err
	}
	last, err := c.s.WriteChunk(ctx, w, inTx)
	return last, c.err(err)
}

func (c checked) TouchBoard(ctx context.Context, n int) error {
	if err := checkN(n); err != nil {
		return err
	}
	return c.err(c.s.TouchBoard(ctx, n))
}

func (c checked) FinishBoard(ctx context.Context, n int) (Board, error) {
	if err := checkN(n); err != nil {
		return Board{}, err
	}
	b, err := c.s.FinishBoard(ctx, n)
	return b, c.err(err)
}

func (c checked) FailBoard(ctx context.Context, n int, reason string) (Board, error) {
	if err := cmp.Or(checkN(n), checkReason(reason)); err != nil {
		return Board{}, err
	}
	b, err := c.s.FailBoard(ctx, n, reason)
	return b, c.err(err)
}

func (c checked) SeeWorker(ctx context.Context, id string) error {
	if err := checkWorkerID(id); err != nil {
		return err
	}
	return c.err(c.s.SeeWorker(ctx, id))
}

func (c checked) Workers(ctx context.Context) ([]Worker, error) {
	ws, err := c.s.Workers(ctx)
	return ws, c.err(err)
}

func (c checked) ForgetWorker(ctx context.Context, id string) error {
	if err := checkWorkerID(id); err != nil {
		return err
	}
	return c.err(c.s.ForgetWorker(ctx, id))
}

func (c checked) Page(ctx context.Context, req PageRequest) ([]Solution, error) {
	if err := checkPage(req); err != nil {
		return nil, err
	}
	page, err := c.s.Page(ctx, req)
	return page, c.err(err)
}

func (c checked) CountSolutions(ctx context.Context, req CountRequest) (uint64, error) {
	if err := checkCount(req); err != nil {
		return 0, err
	}
	k, err := c.s.CountSolutions(ctx, req)
	return k, c.err(err)
}

func (c checked) Walk(ctx context.Context, req WalkRequest, visit func(placement []byte) error) error {
	if err := checkWalk(req); err != nil {
		return err
	}
	// An error of visit is the caller's own: it passes through unclassified.
	var visitErr error
	err := c.s.Walk(ctx, req, func(p []byte) error {
		visitErr = visit(p)
		return visitErr
	})
	if visitErr != nil {
		return visitErr
	}
	return c.err(err)
}

func (c checked) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (Solution, error) {
	if err := cmp.Or(checkN(n), checkRank(rank)); err != nil {
		return Solution{}, err
	}
	s, err := c.s.SolutionAt(ctx, n, rank, unique)
	return s, c.err(err)
}

func (c checked) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	if err := cmp.Or(checkN(n), checkPlacement(n, p, "placement")); err != nil {
		return 0, err
	}
	r, err := c.s.Rank(ctx, n, p, unique)
	return r, c.err(err)
}

func (c checked) SquareCounts(ctx context.Context, n int) (solver.SquareCounts, error) {
	if err := checkN(n); err != nil {
		return solver.SquareCounts{}, err
	}
	s, err := c.s.SquareCounts(ctx, n)
	return s, c.err(err)
}

func (c checked) Ping(ctx context.Context) error { return c.err(c.s.Ping(ctx)) }

func (c checked) Close() error { return c.err(c.s.Close()) }
