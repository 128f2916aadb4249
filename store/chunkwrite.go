package store

import (
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
