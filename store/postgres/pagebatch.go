package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/columns"
)

// pageBatcher sends the page queries that are waiting at the same moment
// as one pgx batch: one write to Postgres and one read of the answers for
// all of them, instead of a round trip each. Under load most of a page
// query's cost, on both sides, is the round trip's system calls and
// wake-ups, not the index scan. It never waits to fill a batch: a sender
// takes one query, then whatever else is already queued (up to
// maxPageBatch), so a lone query goes out at once.
type pageBatcher struct {
	pool  *pgxpool.Pool
	calls chan *pageCall
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

// pageCall is one Page waiting for its batch.
type pageCall struct {
	ctx  context.Context
	req  store.PageRequest
	page []store.Solution
	err  error
	done chan struct{}
}

const (
	// pageSenders is how many batches can be in flight at once: while
	// one waits for Postgres, the next one gathers.
	pageSenders = 2
	// maxPageBatch bounds a batch: its answers are a few KiB each.
	maxPageBatch = 32
	// pageBatchTimeout bounds a batch none of whose callers has a
	// deadline.
	pageBatchTimeout = 30 * time.Second
)

var pageCallPool = sync.Pool{New: func() any { return &pageCall{done: make(chan struct{}, 1)} }}

func newPageBatcher(pool *pgxpool.Pool) *pageBatcher {
	b := &pageBatcher{pool: pool, calls: make(chan *pageCall), stop: make(chan struct{})}
	for range pageSenders {
		b.wg.Go(b.send)
	}
	return b
}

// close stops the senders; Page then runs each query on its own. A store
// may be closed more than once.
func (b *pageBatcher) close() {
	b.once.Do(func() { close(b.stop) })
	b.wg.Wait()
}

// page runs req's query, in a batch when a sender takes it. A query
// within a span being recorded runs on its own, so that its statement gets
// its span in the request's trace.
func (b *pageBatcher) page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	if trace.SpanFromContext(ctx).IsRecording() {
		return queryPage(ctx, b.pool, req)
	}
	c := pageCallPool.Get().(*pageCall)
	c.ctx, c.req = ctx, req
	select {
	case b.calls <- c:
	case <-b.stop:
		c.ctx = nil
		pageCallPool.Put(c)
		return queryPage(ctx, b.pool, req)
	case <-ctx.Done():
		c.ctx = nil
		pageCallPool.Put(c)
		return nil, ctx.Err()
	}
	select {
	case <-c.done:
		page, err := c.page, c.err
		c.ctx, c.page, c.err = nil, nil, nil
		pageCallPool.Put(c)
		return page, err
	case <-ctx.Done():
		// The sender still answers c; it is left to the collector.
		return nil, ctx.Err()
	}
}

func (b *pageBatcher) send() {
	batch := make([]*pageCall, 0, maxPageBatch)
	for {
		select {
		case c := <-b.calls:
			batch = append(batch[:0], c)
		case <-b.stop:
			return
		}
	gather:
		for len(batch) < maxPageBatch {
			select {
			case c := <-b.calls:
				batch = append(batch, c)
			default:
				break gather
			}
		}
		b.run(batch)
		clear(batch)
	}
}

// run sends one batch and answers its calls. The batch has no caller's
// cancellation (one client's going away must not fail the others) and
// the latest of their deadlines. Should the batch fail (a query's error
// aborts the rest of it), each call not yet answered runs on its own, with
// its own context, and gets its own answer.
func (b *pageBatcher) run(calls []*pageCall) {
	ctx, cancel := batchContext(calls)
	defer cancel()
	var batch pgx.Batch
	for _, c := range calls {
		batch.Queue(pageQuery(c.req), pageArgs(c.req)...)
	}
	results := b.pool.SendBatch(ctx, &batch)
	answered := 0
	for _, c := range calls {
		rows, err := results.Query()
		if err == nil {
			c.page, err = collectPage(rows, c.req)
		}
		if err != nil {
			break
		}
		c.done <- struct{}{}
		answered++
	}
	results.Close()
	for _, c := range calls[answered:] {
		c.page, c.err = queryPage(c.ctx, b.pool, c.req)
		c.done <- struct{}{}
	}
}

func batchContext(calls []*pageCall) (context.Context, context.CancelFunc) {
	deadline, bounded := time.Time{}, true
	for _, c := range calls {
		d, ok := c.ctx.Deadline()
		bounded = bounded && ok
		if d.After(deadline) {
			deadline = d
		}
	}
	if !bounded {
		deadline = time.Now().Add(pageBatchTimeout)
	}
	return context.WithDeadline(context.Background(), deadline)
}

// queryPage runs one page query on its own.
func queryPage(ctx context.Context, q *pgxpool.Pool, req store.PageRequest) ([]store.Solution, error) {
	rows, err := q.Query(ctx, pageQuery(req), pageArgs(req)...)
	if err != nil {
		return nil, err
	}
	return collectPage(rows, req)
}

func pageQuery(req store.PageRequest) string {
	unique := 0
	if req.Unique {
		unique = 1
	}
	return pageQueries[req.Direction][unique]
}

func pageArgs(req store.PageRequest) []any {
	return []any{req.N, columns.CursorKey(req), req.Limit}
}

// collectPage reads a page's rows, in the listing's order. The rows come
// in binary (pgx asks for it for these columns) and are read straight
// from their bytes: a page's placements share one allocation, and no
// value goes through an interface, which was a tenth of a page request's
// CPU with pgx.CollectRows. Rows in another format go through Scan.
func collectPage(rows pgx.Rows, req store.PageRequest) ([]store.Solution, error) {
	defer rows.Close()
	size := max(req.Limit, 0) // the store's checks bound it
	page := make([]store.Solution, 0, size)
	cells := make([]int, 0, size*req.N)
	inBinary := slices.IndexFunc(rows.FieldDescriptions(), func(f pgconn.FieldDescription) bool {
		return f.Format != pgx.BinaryFormatCode
	}) < 0
	for rows.Next() {
		if !inBinary {
			sol, err := scanSolution(rows, req.N)
			if err != nil {
				return nil, err
			}
			page = append(page, sol)
			continue
		}
		v := rows.RawValues()
		if len(v) != 3 || len(v[1]) != 1 || len(v[2]) != 2 || len(cells)+len(v[0]) > cap(cells) {
			return nil, fmt.Errorf("page of N=%d: a row of %d columns is not (placement, canonical, orbit_size)", req.N, len(v))
		}
		start := len(cells)
		for _, c := range v[0] {
			cells = append(cells, int(c))
		}
		page = append(page, store.Solution{
			N:         req.N,
			Placement: solver.Placement(cells[start:len(cells):len(cells)]),
			Canonical: v[1][0] != 0,
			OrbitSize: int(int16(binary.BigEndian.Uint16(v[2]))),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if req.Direction == store.Backward {
		slices.Reverse(page)
	}
	return page, nil
}
