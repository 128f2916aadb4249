package graph

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// A board's state: its row in the store (DONE rows read once), the plan
// of a pending one, where its pages come from, and its counts.

// status reads board N's row from the store: store.Unknown without one.
func (r *Resolver) status(ctx context.Context, n int) (store.Board, error) {
	if b, ok := r.done.Load(n); ok {
		return b.(store.Board), nil
	}
	b, err := r.boards.Board(ctx, n)
	switch {
	case nqueens.ErrorCode(err) == nqueens.ENOTFOUND:
		return store.Board{N: n}, nil
	case err != nil:
		return store.Board{}, dependencyError(ctx, fmt.Sprintf("reading board N=%d from the store", n), err)
	}
	bs := []store.Board{r.remember(b)}
	if err := r.planPending(ctx, bs); err != nil {
		return store.Board{}, err
	}
	return bs[0], nil
}

// remember keeps the row of a DONE board.
func (r *Resolver) remember(b store.Board) store.Board {
	if b.State == store.Done {
		r.done.Store(b.N, b)
	}
	return b
}

// planPending sets StoresSolutions of the pending boards among bs as
// Options.Plans says. A board's job leaves the plans once a worker has
// planned the board, so its row is read again after them: a board still
// pending then was pending while they were read, and one no longer
// pending has its plan in its new row.
func (r *Resolver) planPending(ctx context.Context, bs []store.Board) error {
	var pending []int
	for _, b := range bs {
		if b.State == store.Pending {
			pending = append(pending, b.N)
		}
	}
	if r.opts.Plans == nil || len(pending) == 0 {
		return nil
	}
	stores, err := r.opts.Plans.StoresSolutions(ctx, pending)
	if err != nil {
		return dependencyError(ctx, "reading how pending boards will be computed", err)
	}
	for i := range bs {
		if bs[i].State != store.Pending {
			continue
		}
		b, err := r.boards.Board(ctx, bs[i].N)
		if err != nil {
			return dependencyError(ctx, fmt.Sprintf("reading board N=%d from the store", bs[i].N), err)
		}
		if b.State != store.Pending {
			bs[i] = r.remember(b)
			continue
		}
		bs[i].StoresSolutions = stores[bs[i].N]
	}
	return nil
}

// source picks where pages of a board come from: the store once it holds
// them all, the solver otherwise.
func (r *Resolver) source(b store.Board) (Listing, Source) {
	if r.opts.Stored != nil && b.State == store.Done && b.StoresSolutions {
		return r.opts.Stored, SourceStore
	}
	return indexedListing{r}, SourceSolver
}

func (r *Resolver) boardModel(b store.Board) *Board {
	_, src := r.source(b)
	return &Board{N: b.N, row: b, source: src, squares: &lazySquareCounts{}}
}

// board returns the Board of N.
func (r *Resolver) board(ctx context.Context, n int) (*Board, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	st, err := r.status(ctx, n)
	if err != nil {
		return nil, err
	}
	return r.boardModel(st), nil
}

// countsOf returns the counts of a board: the store's once it is done,
// else computed on the spot for N up to CountMaxN, else nil (unknown).
func (r *Resolver) countsOf(ctx context.Context, st store.Board) (*solver.Counts, Source, error) {
	if st.State == store.Done && st.Counts != nil {
		return st.Counts, SourceStore, nil
	}
	if st.N > r.opts.CountMaxN {
		return nil, "", nil
	}
	c, err := r.solverCounts(ctx, st.N)
	if err != nil {
		return nil, "", err
	}
	return &c, SourceSolver, nil
}

// solverCounts counts N with the solver once per process. The count runs
// detached from the request (bounded by CountTimeout), so that a request
// that gives up leaves the result for the next one.
func (r *Resolver) solverCounts(ctx context.Context, n int) (solver.Counts, error) {
	r.countMu.Lock()
	c, ok := r.counted[n]
	r.countMu.Unlock()
	if ok {
		return c, nil
	}
	ch := r.countSF.DoChan(strconv.Itoa(n), func() (any, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.CountTimeout)
		defer cancel()
		c, err := solver.Count(cctx, n, solver.CountOptions{})
		if err == nil {
			err = c.Check()
		}
		if err != nil {
			return nil, err
		}
		r.countMu.Lock()
		r.counted[n] = c
		r.countMu.Unlock()
		return c, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			if errors.Is(res.Err, context.DeadlineExceeded) {
				return solver.Counts{}, &apierror.Error{Code: apierror.Timeout, Err: res.Err,
					Message: fmt.Sprintf("counting N=%d with the solver took longer than %s", n, r.opts.CountTimeout)}
			}
			return solver.Counts{}, internal(res.Err)
		}
		return res.Val.(solver.Counts), nil
	case <-ctx.Done():
		if ctx.Err() == context.Canceled {
			return solver.Counts{}, ctx.Err()
		}
		return solver.Counts{}, &apierror.Error{Code: apierror.Timeout, Err: ctx.Err(),
			Message: fmt.Sprintf("counting N=%d with the solver did not finish within the request's time budget; ask for a smaller page, or precompute the board to page it from the store", n)}
	}
}

// total returns the size of a board's listing (unique: of its canonical
// solutions), nil when unknown.
func (r *Resolver) total(ctx context.Context, st store.Board, unique bool) (*uint64, error) {
	c, _, err := r.countsOf(ctx, st)
	if err != nil || c == nil {
		return nil, err
	}
	t := c.Total
	if unique {
		t = c.Unique
	}
	return &t, nil
}

// boardCounts returns a board's counts (nil while unknown, which may
// change: noted in the cache hint).
func (r *Resolver) boardCounts(ctx context.Context, b *Board) (*solver.Counts, Source, error) {
	c, src, err := r.countsOf(ctx, b.row)
	if c == nil {
		markVolatile(ctx)
	}
	return c, src, err
}
