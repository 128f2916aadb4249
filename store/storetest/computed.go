package storetest

import (
	"context"
	"iter"
	"runtime"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// ComputedChunk is a chunk whose solutions were enumerated beforehand and
// kept compactly (one byte per row), so that a benchmark can time the
// store's writes alone.
type ComputedChunk struct {
	Chunk solver.Chunk
	keys  []byte // the solutions' placements, N bytes each, ascending
}

// Len is the number of solutions.
func (c ComputedChunk) Len() int { return len(c.keys) / c.Chunk.N }

// Write is the chunk as WriteChunk takes it. Its iterator reuses one
// placement, as the solver's do.
func (c ComputedChunk) Write() store.ChunkWrite {
	n := c.Chunk.N
	return store.ChunkWrite{Chunk: c.Chunk, Solutions: func(yield func(solver.Placement) bool) {
		p := make(solver.Placement, n)
		for off := 0; off < len(c.keys); off += n {
			for i, b := range c.keys[off : off+n] {
				p[i] = int(b)
			}
			if !yield(p) {
				return
			}
		}
	}}
}

// LoadComputed plans the chunks' board, writes the chunks in the order
// given, one WriteChunk each, and finishes the board.
func LoadComputed(tb testing.TB, s store.Reader, chunks []ComputedChunk) {
	tb.Helper()
	w := WritesOf(tb, s)
	ctx := context.Background()
	n := chunks[0].Chunk.N
	plan := store.BoardPlan{N: n, ChunkDepth: len(chunks[0].Chunk.Prefix), StoresSolutions: true, SolverVersion: SolverVersion}
	if _, _, err := w.PlanBoard(ctx, plan); err != nil {
		tb.Fatal(err)
	}
	for _, c := range chunks {
		if _, err := w.WriteChunk(ctx, c.Write()); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := w.FinishBoard(ctx, n); err != nil {
		tb.Fatal(err)
	}
}

// Solutions is the number of solutions of the chunks.
func Solutions(chunks []ComputedChunk) int {
	total := 0
	for _, c := range chunks {
		total += c.Len()
	}
	return total
}

// Rows yields every solution of the chunks in order, as keys (reused).
func Rows(chunks []ComputedChunk) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for _, c := range chunks {
			for off := 0; off < len(c.keys); off += c.Chunk.N {
				if !yield(c.keys[off : off+c.Chunk.N]) {
					return
				}
			}
		}
	}
}

// ComputeChunks enumerates every chunk of N at depth with all cores.
func ComputeChunks(n, depth int) ([]ComputedChunk, error) {
	chunks, err := solver.Chunks(n, depth)
	if err != nil {
		return nil, err
	}
	out := make([]ComputedChunk, len(chunks))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				c := chunks[i]
				var keys []byte
				for p := range c.Solutions() {
					for _, col := range p {
						keys = append(keys, byte(col))
					}
				}
				out[i] = ComputedChunk{Chunk: c, keys: keys}
			}
		})
	}
	for i := range chunks {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, nil
}
