package store

import (
	"bytes"
	"context"
	"fmt"
	"iter"

	"github.com/nqueens/nqueens/solver"
)

// ChunkWrite is one computed chunk, ready to be stored.
type ChunkWrite struct {
	Chunk solver.Chunk
	// Tasks, when set, are the chunk instead of Chunk: the tasks of a chunk
	// of a board planned by tasks, written with their Counts (the sum of
	// solver.CountTask's).
	Tasks []solver.Task
	// Solutions yields the chunk's solutions in ascending order, as
	// Chunk.Solutions does. The store derives the chunk's counts from them
	// and, when the board stores solutions, writes them. Required for a
	// board that stores solutions.
	Solutions iter.Seq[solver.Placement]
	// Counts are the chunk's counts (see ChunkRecord) when Solutions is nil:
	// a board that keeps counts only can count without enumerating.
	Counts solver.Counts
}

// N is the board the chunk belongs to.
func (w ChunkWrite) N() int {
	if len(w.Tasks) > 0 {
		return w.Tasks[0].N
	}
	return w.Chunk.N
}

// Key names the chunk's row among its board's: the column that holds it,
// "prefix" or "task", and the value there.
func (w ChunkWrite) Key() (column string, value []byte) {
	if len(w.Tasks) > 0 {
		return "task", TasksKey(w.Tasks)
	}
	return "prefix", w.Chunk.Prefix.Bytes()
}

// String names the chunk in messages.
func (w ChunkWrite) String() string {
	if len(w.Tasks) == 1 {
		return w.Tasks[0].String()
	}
	if len(w.Tasks) > 0 {
		return fmt.Sprintf("%d tasks from %v", len(w.Tasks), w.Tasks[0])
	}
	return w.Chunk.String()
}

// CheckChunkWrite checks a chunk write before the database is touched: a
// board size in range, a prefix of queens that do not attack each other
// (or a task of the counter), and counts that add up when they are given
// instead of solutions.
func CheckChunkWrite(w ChunkWrite) error {
	if err := CheckN(w.N()); err != nil {
		return err
	}
	if len(w.Tasks) > 0 {
		for _, t := range w.Tasks {
			if t.N != w.N() {
				return Errorf(EINVALID, "%v: tasks of N=%d and N=%d in one chunk", w, w.N(), t.N)
			}
			if err := t.Validate(); err != nil {
				return Errorf(EINVALID, "%v", err)
			}
		}
		if w.Solutions != nil {
			return Errorf(EINVALID, "%v: tasks are written with their counts, not their solutions", w)
		}
		return CheckChunkCounts(w, w.Counts)
	}
	if err := w.Chunk.Validate(); err != nil {
		return Errorf(EINVALID, "%v", err)
	}
	if w.Solutions == nil {
		return CheckChunkCounts(w, w.Counts)
	}
	return nil
}

// CheckChunkCounts checks counts given for a chunk without its solutions:
// its classes must add up to its unique count, which cannot exceed its
// total. (The full check, solver.Counts.Check, holds only for a whole
// board: a class's members lie in several chunks.)
func CheckChunkCounts(w ChunkWrite, c solver.Counts) error {
	if c.Orbit1+c.Orbit2+c.Orbit4+c.Orbit8 != c.Unique || c.Unique > c.Total || c.Total >= 1<<63 {
		return Errorf(EINVALID, "%v: counts do not add up: %+v", w, c)
	}
	return nil
}

// CheckChunkTarget checks that the chunk's board, in state with
// storesSolutions, takes the write of a chunk that is not done yet.
func CheckChunkTarget(w ChunkWrite, state BoardState, storesSolutions bool) error {
	switch {
	case state != Running:
		return Errorf(ECONFLICT, "N=%d is %s; chunks are written while it runs", w.N(), state)
	case storesSolutions && w.Solutions == nil:
		return Errorf(EINVALID, "N=%d stores its solutions: %v needs them, not only counts", w.N(), w)
	}
	return nil
}

// ChunkNotFound is the error for a write whose chunk is not a row of a
// planned board.
func ChunkNotFound(w ChunkWrite) error {
	return Errorf(ENOTFOUND, "%v is not a chunk of a planned board", w)
}

// Row is one solution as a backend writes it.
type Row struct {
	Key       []byte // the placement, one byte per row; reused by the next row
	Canonical bool
	OrbitSize int
}

// ChunkRows reads a ChunkWrite's solutions as rows, pull-style (a COPY
// stream takes rows as it needs them; a loop works as well). It checks that every
// solution belongs to the chunk and comes after the previous one, so a
// wiring mistake cannot store a row under the wrong chunk or twice, and it
// counts what it read. It stops with the context's error when ctx ends.
//
//	rows := store.NewChunkRows(ctx, w)
//	defer rows.Close()
//	for rows.Next() { use(rows.Row()) }
//	if rows.Err() != nil { ... }
//	counts := rows.Counts()
type ChunkRows struct {
	ctx    context.Context
	n      int
	prefix []byte
	next   func() (solver.Placement, bool)
	stop   func()
	row    Row
	prev   []byte
	read   int
	counts solver.Counts
	err    error
}

// ctxCheckEvery is how many rows ChunkRows reads between looks at its
// context: often enough to stop within a millisecond, rarely enough to cost
// nothing.
const ctxCheckEvery = 256

// NewChunkRows starts reading w.Solutions, which must not be nil.
func NewChunkRows(ctx context.Context, w ChunkWrite) *ChunkRows {
	next, stop := iter.Pull(w.Solutions)
	n := w.Chunk.N
	return &ChunkRows{
		ctx:    ctx,
		n:      n,
		prefix: w.Chunk.Prefix.Bytes(),
		next:   next,
		stop:   stop,
		row:    Row{Key: make([]byte, n)},
		prev:   make([]byte, n),
	}
}

// Next reads the next row; false at the end or on an error (see Err).
func (r *ChunkRows) Next() bool {
	if r.err != nil {
		return false
	}
	if r.read%ctxCheckEvery == 0 {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
	}
	p, ok := r.next()
	if !ok {
		return false
	}
	if len(p) != r.n {
		r.err = Errorf(EINVALID, "chunk %v: a solution has %d rows, want %d", r.chunk(), len(p), r.n)
		return false
	}
	key := r.row.Key
	for i, c := range p {
		if c < 0 || c >= r.n {
			r.err = Errorf(EINVALID, "chunk %v: solution %v has a column outside 0..%d", r.chunk(), p, r.n-1)
			return false
		}
		key[i] = byte(c)
	}
	if !bytes.HasPrefix(key, r.prefix) {
		r.err = Errorf(EINVALID, "chunk %v: solution %v does not start with the chunk's prefix", r.chunk(), p)
		return false
	}
	if r.read > 0 && bytes.Compare(key, r.prev) <= 0 {
		r.err = Errorf(EINVALID, "chunk %v: solution %v is not after the previous one (solutions must come in ascending order, once each)", r.chunk(), p)
		return false
	}
	copy(r.prev, key)
	r.read++

	r.row.Canonical = solver.IsCanonical(p)
	r.row.OrbitSize = solver.OrbitSize(p)
	r.counts.AddSolution(r.row.Canonical, r.row.OrbitSize)
	return true
}

func (r *ChunkRows) chunk() solver.Chunk {
	return solver.Chunk{N: r.n, Prefix: solver.FromBytes(r.prefix)}
}

// Row is the row Next read. Its Key is overwritten by the next call.
func (r *ChunkRows) Row() Row { return r.row }

// Err is why Next stopped early, or nil at the end of the solutions.
func (r *ChunkRows) Err() error { return r.err }

// Counts are the counts of the rows read so far: after the last row, the
// chunk's counts.
func (r *ChunkRows) Counts() solver.Counts { return r.counts }

// Close stops the solutions iterator.
func (r *ChunkRows) Close() { r.stop() }
