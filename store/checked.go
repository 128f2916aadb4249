package store

import (
	"cmp"
	"context"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// Checked returns s behind the one edge every call of a backend crosses:
// the arguments are checked first (bad input is nqueens.EINVALID, with the
// same message whatever the backend, and reaches no database), every
// error s returns is classified by the backend's classify, so that callers
// get the codes they act on (nqueens.EUNAVAILABLE, nqueens.ECONFLICT, …)
// whichever path the error took, and observe (if not nil) is told of every
// call once it returns. The backends' Open return their queries behind
// it, so that each of their methods starts at its SQL and classifies
// nothing itself.
func Checked[TTx any](s Store[TTx], classify func(error) error, observe Observer) Store[TTx] {
	if observe == nil {
		observe = func(string, time.Duration, error) {}
	}
	return checked[TTx]{s: s, classify: classify, observe: observe}
}

// checked is Checked's Store.
type checked[TTx any] struct {
	s        Store[TTx]
	classify func(error) error
	observe  Observer
}

// err classifies an error of the backend.
func (c checked[TTx]) err(err error) error {
	if err == nil {
		return nil
	}
	return c.classify(err)
}

// end tells the observer of a call of method that started at start, with
// its error: deferred first thing in every method, with the method's
// named result.
func (c checked[TTx]) end(method string, start time.Time, err *error) {
	c.observe(method, time.Since(start), *err)
}

func (c checked[TTx]) Board(ctx context.Context, n int) (_ Board, err error) {
	defer c.end("Board", time.Now(), &err)
	if err := checkN(n); err != nil {
		return Board{}, err
	}
	b, err := c.s.Board(ctx, n)
	return b, c.err(err)
}

func (c checked[TTx]) Boards(ctx context.Context, states ...BoardState) (_ []Board, err error) {
	defer c.end("Boards", time.Now(), &err)
	if err := checkStates(states); err != nil {
		return nil, err
	}
	bs, err := c.s.Boards(ctx, states...)
	return bs, c.err(err)
}

func (c checked[TTx]) RequestBoard(ctx context.Context, req BoardRequest) (_ Board, _ bool, err error) {
	defer c.end("RequestBoard", time.Now(), &err)
	if err := cmp.Or(checkN(req.N), checkRequestedBy(req.RequestedBy)); err != nil {
		return Board{}, false, err
	}
	b, created, err := c.s.RequestBoard(ctx, req)
	return b, created, c.err(err)
}

func (c checked[TTx]) PlanBoard(ctx context.Context, plan BoardPlan, onClaim PlanTxFunc[TTx]) (_ Board, _ bool, err error) {
	defer c.end("PlanBoard", time.Now(), &err)
	if err := checkPlan(plan); err != nil {
		return Board{}, false, err
	}
	b, claimed, err := c.s.PlanBoard(ctx, plan, onClaim)
	return b, claimed, c.err(err)
}

func (c checked[TTx]) Chunks(ctx context.Context, n int) (_ []ChunkRecord, err error) {
	defer c.end("Chunks", time.Now(), &err)
	if err := checkN(n); err != nil {
		return nil, err
	}
	cs, err := c.s.Chunks(ctx, n)
	return cs, c.err(err)
}

func (c checked[TTx]) WriteChunk(ctx context.Context, w ChunkWrite, inTx TxFunc[TTx]) (_ bool, err error) {
	defer c.end("WriteChunk", time.Now(), &err)
	if err := checkChunkWrite(w); err != nil {
		return false, err
	}
	last, err := c.s.WriteChunk(ctx, w, inTx)
	return last, c.err(err)
}

func (c checked[TTx]) TouchBoard(ctx context.Context, n int) (err error) {
	defer c.end("TouchBoard", time.Now(), &err)
	if err := checkN(n); err != nil {
		return err
	}
	return c.err(c.s.TouchBoard(ctx, n))
}

func (c checked[TTx]) FinishBoard(ctx context.Context, n int) (_ Board, err error) {
	defer c.end("FinishBoard", time.Now(), &err)
	if err := checkN(n); err != nil {
		return Board{}, err
	}
	b, err := c.s.FinishBoard(ctx, n)
	return b, c.err(err)
}

func (c checked[TTx]) FailBoard(ctx context.Context, n int, reason string) (_ Board, err error) {
	defer c.end("FailBoard", time.Now(), &err)
	if err := cmp.Or(checkN(n), checkReason(reason)); err != nil {
		return Board{}, err
	}
	b, err := c.s.FailBoard(ctx, n, reason)
	return b, c.err(err)
}

func (c checked[TTx]) SeeWorker(ctx context.Context, id string) (err error) {
	defer c.end("SeeWorker", time.Now(), &err)
	if err := checkWorkerID(id); err != nil {
		return err
	}
	return c.err(c.s.SeeWorker(ctx, id))
}

func (c checked[TTx]) Workers(ctx context.Context) (_ []Worker, err error) {
	defer c.end("Workers", time.Now(), &err)
	ws, err := c.s.Workers(ctx)
	return ws, c.err(err)
}

func (c checked[TTx]) ForgetWorker(ctx context.Context, id string) (err error) {
	defer c.end("ForgetWorker", time.Now(), &err)
	if err := checkWorkerID(id); err != nil {
		return err
	}
	return c.err(c.s.ForgetWorker(ctx, id))
}

func (c checked[TTx]) Page(ctx context.Context, req PageRequest) (_ []Solution, err error) {
	defer c.end("Page", time.Now(), &err)
	if err := checkPage(req); err != nil {
		return nil, err
	}
	page, err := c.s.Page(ctx, req)
	return page, c.err(err)
}

func (c checked[TTx]) Walk(ctx context.Context, req WalkRequest, visit func(placement []byte) error) (err error) {
	defer c.end("Walk", time.Now(), &err)
	if err := checkWalk(req); err != nil {
		return err
	}
	// An error of visit is the caller's own: it passes through unclassified.
	var visitErr error
	err = c.s.Walk(ctx, req, func(p []byte) error {
		visitErr = visit(p)
		return visitErr
	})
	if visitErr != nil {
		return visitErr
	}
	return c.err(err)
}

func (c checked[TTx]) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (_ Solution, err error) {
	defer c.end("SolutionAt", time.Now(), &err)
	if err := cmp.Or(checkN(n), checkRank(rank)); err != nil {
		return Solution{}, err
	}
	s, err := c.s.SolutionAt(ctx, n, rank, unique)
	return s, c.err(err)
}

func (c checked[TTx]) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (_ uint64, err error) {
	defer c.end("Rank", time.Now(), &err)
	if err := cmp.Or(checkN(n), checkPlacement(n, p, "placement")); err != nil {
		return 0, err
	}
	r, err := c.s.Rank(ctx, n, p, unique)
	return r, c.err(err)
}

func (c checked[TTx]) SquareCounts(ctx context.Context, n int) (_ solver.SquareCounts, err error) {
	defer c.end("SquareCounts", time.Now(), &err)
	if err := checkN(n); err != nil {
		return solver.SquareCounts{}, err
	}
	s, err := c.s.SquareCounts(ctx, n)
	return s, c.err(err)
}

func (c checked[TTx]) Ping(ctx context.Context) (err error) {
	defer c.end("Ping", time.Now(), &err)
	return c.err(c.s.Ping(ctx))
}

func (c checked[TTx]) Close() error { return c.err(c.s.Close()) }
