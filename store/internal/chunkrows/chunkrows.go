// Package chunkrows reads the solutions of a chunk write as the rows a
// backend stores, checking and classifying each on the way.
package chunkrows

import (
	"bytes"
	"context"
	"iter"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Row is one solution as a backend writes it.
type Row struct {
	Key       []byte // the placement, one byte per row; reused by the next row
	Canonical bool
	OrbitSize int
}

// Rows reads a store.ChunkWrite's solutions as rows, pull-style (a COPY
// stream takes rows as it needs them; a loop works as well). It checks that every
// solution belongs to the chunk and comes after the previous one, so a
// wiring mistake cannot store a row under the wrong chunk or twice, and it
// counts what it read. It stops with the context's error when ctx ends.
//
//	rows := chunkrows.New(ctx, w)
//	defer rows.Close()
//	for rows.Next() { use(rows.Row()) }
//	if rows.Err() != nil { ... }
//	counts := rows.Counts()
type Rows struct {
	ctx    context.Context
	n      int
	prefix []byte
	next   func() (solver.Placement, bool)
	stop   func()
	row    Row
	prev   []byte
	read   int
	counts solver.Counts
	// squares are the statistics of the rows read: the solutions pass
	// here on their way to the table, and tallying their squares costs N
	// increments each.
	squares solver.SquareCounts
	err     error
}

// ctxCheckEvery is how many rows Rows reads between looks at its
// context: often enough to stop within a millisecond, rarely enough to cost
// nothing.
const ctxCheckEvery = 256

// New starts reading w.Solutions, which must not be nil.
func New(ctx context.Context, w store.ChunkWrite) *Rows {
	next, stop := iter.Pull(w.Solutions)
	n := w.Chunk.N
	return &Rows{
		ctx:     ctx,
		n:       n,
		prefix:  w.Chunk.Prefix.Bytes(),
		next:    next,
		stop:    stop,
		row:     Row{Key: make([]byte, n)},
		prev:    make([]byte, n),
		squares: solver.NewSquareCounts(n),
	}
}

// Next reads the next row; false at the end or on an error (see Err).
func (r *Rows) Next() bool {
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
		r.err = nqueens.Errorf(nqueens.EINVALID, "chunk %v: a solution has %d rows, want %d", r.chunk(), len(p), r.n)
		return false
	}
	key := r.row.Key
	for i, c := range p {
		if c < 0 || c >= r.n {
			r.err = nqueens.Errorf(nqueens.EINVALID, "chunk %v: solution %v has a column outside 0..%d", r.chunk(), p, r.n-1)
			return false
		}
		key[i] = byte(c)
	}
	if !bytes.HasPrefix(key, r.prefix) {
		r.err = nqueens.Errorf(nqueens.EINVALID, "chunk %v: solution %v does not start with the chunk's prefix", r.chunk(), p)
		return false
	}
	if r.read > 0 && bytes.Compare(key, r.prev) <= 0 {
		r.err = nqueens.Errorf(nqueens.EINVALID, "chunk %v: solution %v is not after the previous one (solutions must come in ascending order, once each)", r.chunk(), p)
		return false
	}
	copy(r.prev, key)
	r.read++

	r.row.Canonical = solver.IsCanonical(p)
	r.row.OrbitSize = solver.OrbitSize(p)
	r.counts.AddSolution(r.row.Canonical, r.row.OrbitSize)
	r.squares.AddSolution(p, r.row.Canonical)
	return true
}

func (r *Rows) chunk() solver.Chunk {
	return solver.Chunk{N: r.n, Prefix: solver.FromBytes(r.prefix)}
}

// Row is the row Next read. Its Key is overwritten by the next call.
func (r *Rows) Row() Row { return r.row }

// Err is why Next stopped early, or nil at the end of the solutions.
func (r *Rows) Err() error { return r.err }

// Counts are the counts of the rows read so far: after the last row, the
// chunk's counts.
func (r *Rows) Counts() solver.Counts { return r.counts }

// SquareCounts are the statistics of the rows read so far: after the last
// row, the chunk's.
func (r *Rows) SquareCounts() solver.SquareCounts { return r.squares }

// Close stops the solutions iterator.
func (r *Rows) Close() { r.stop() }
