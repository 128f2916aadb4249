package store

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
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

// PlannedChunks are the chunk rows a plan makes, in chunk order, not done:
// the prefixes of solver.Chunks, or the tasks of solver.Tasks in groups of
// plan.TasksPerChunk (the last group may be smaller).
func PlannedChunks(plan BoardPlan) ([]ChunkRecord, error) {
	if plan.Tasks {
		tasks, err := solver.Tasks(plan.N)
		if err != nil {
			return nil, Errorf(EINVALID, "%v", err)
		}
		size := max(plan.TasksPerChunk, 1)
		var out []ChunkRecord
		for i := 0; i < len(tasks); i += size {
			out = append(out, ChunkRecord{N: plan.N, Index: len(out), Tasks: tasks[i:min(i+size, len(tasks))]})
		}
		return out, nil
	}
	chunks, err := solver.Chunks(plan.N, plan.ChunkDepth)
	if err != nil {
		return nil, Errorf(EINVALID, "%v", err)
	}
	out := make([]ChunkRecord, len(chunks))
	for i, c := range chunks {
		out[i] = ChunkRecord{N: plan.N, Index: i, Prefix: c.Prefix}
	}
	return out, nil
}

// KeyColumns returns the values of a chunk row's prefix and task columns:
// one of them nil (SQL NULL).
func (c ChunkRecord) KeyColumns() (prefix, tasks []byte) {
	if len(c.Tasks) > 0 {
		return nil, TasksKey(c.Tasks)
	}
	return c.Prefix.Bytes(), nil
}

// SetKey fills the chunk's Prefix or Tasks from its row's columns; tasks
// is nil for a prefix chunk.
func (c *ChunkRecord) SetKey(prefix, tasks []byte) error {
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
