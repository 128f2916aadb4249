package columns

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// TasksKey is how a chunk row holds its tasks (column chunks.task): each
// task's frame as four bytes, in the order top, bottom, left, right, 255
// standing for -1 (the one task of N ≤ 3, the whole board, has all four
// at -1); the tasks one after the other, in the order of solver.Tasks.
func TasksKey(tasks []solver.Task) []byte {
	key := make([]byte, 0, 4*len(tasks))
	for _, t := range tasks {
		key = append(key, byte(t.Top), byte(t.Bottom), byte(t.Left), byte(t.Right))
	}
	return key
}

// TasksFromKey reads the tasks of N back from their key.
func TasksFromKey(n int, key []byte) ([]solver.Task, error) {
	if len(key) == 0 || len(key)%4 != 0 {
		return nil, fmt.Errorf("store: a key of tasks has 4 bytes a task, got %d bytes", len(key))
	}
	field := func(b byte) int {
		if b == 255 {
			return -1
		}
		return int(b)
	}
	out := make([]solver.Task, 0, len(key)/4)
	for k := key; len(k) > 0; k = k[4:] {
		t := solver.Task{N: n, Top: field(k[0]), Bottom: field(k[1]), Left: field(k[2]), Right: field(k[3])}
		if err := t.Validate(); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// ChunkKey returns the values of a chunk row's prefix and task columns:
// one of them nil (SQL NULL).
func ChunkKey(c store.ChunkRecord) (prefix, tasks []byte) {
	if len(c.Tasks) > 0 {
		return nil, TasksKey(c.Tasks)
	}
	return c.Prefix.Bytes(), nil
}

// SetChunkKey fills the chunk's Prefix or Tasks from its row's columns;
// tasks is nil for a prefix chunk.
func SetChunkKey(c *store.ChunkRecord, prefix, tasks []byte) error {
	if tasks == nil {
		c.Prefix, c.Tasks = solver.FromBytes(prefix), nil
		return nil
	}
	ts, err := TasksFromKey(c.N, tasks)
	if err != nil {
		return err
	}
	c.Prefix, c.Tasks = nil, ts
	return nil
}

// WriteKey names a chunk write's row among its board's: the column that
// holds it, "prefix" or "task", and the value there.
func WriteKey(w store.ChunkWrite) (column string, value []byte) {
	if len(w.Tasks) > 0 {
		return "task", TasksKey(w.Tasks)
	}
	return "prefix", w.Chunk.Prefix.Bytes()
}
