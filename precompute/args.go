package precompute

import (
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens/solver"
)

// The two job kinds. Their names are stored in River's job table with
// every job: keep them.
const (
	KindBoard = "board"
	KindChunk = "chunk"
)

// BoardArgs asks for board N: its job plans the board's chunks and queues
// one chunk job per chunk, in the transaction that records the plan; when
// the chunks are all done it closes the board. It is unique by N while it
// waits or runs, so that many processes asking at once plan the board once.
type BoardArgs struct {
	N int `json:"n" river:"unique"`
	// StoreSolutions keeps every solution; false keeps the counts only,
	// and the chunks are then the counter's tasks.
	StoreSolutions bool `json:"store_solutions"`
	// RequestedBy names who asked, for the board's row if the job makes
	// it (the row is normally made by the request, before the job).
	RequestedBy string `json:"requested_by,omitempty"`
}

// Kind implements river.JobArgs.
func (BoardArgs) Kind() string { return KindBoard }

// InsertOpts implements river.JobArgsWithInsertOpts: board jobs have a
// queue of their own, worked one at a time in each process, so that a
// board asked for is planned at once, without waiting behind chunks, and
// boards asked for together are planned in the order asked: their chunks
// then run in that order (chunk jobs of equal priority run in the order
// they were queued).
func (BoardArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBoards, UniqueOpts: uniqueWhileLive}
}

// QueueBoards is the River queue of board jobs; chunk jobs use River's
// default queue.
const QueueBoards = "boards"

// ChunkArgs is one chunk of board N: a prefix of a board that stores its
// solutions (solver.Chunk), or a run of the counter's tasks for a board
// that keeps counts only. It is unique by (N, Index) while it waits or runs, so
// that resuming a failed board does not queue a chunk twice.
type ChunkArgs struct {
	N     int `json:"n" river:"unique"`
	Index int `json:"index" river:"unique"`
	// Prefix is the chunk's prefix when Tasks is empty (an empty prefix:
	// the whole board).
	Prefix solver.Placement `json:"prefix,omitempty"`
	Tasks  []solver.Task    `json:"tasks,omitempty"`
}

// Kind implements river.JobArgs.
func (ChunkArgs) Kind() string { return KindChunk }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (ChunkArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: uniqueWhileLive}
}

func (a ChunkArgs) String() string {
	if len(a.Tasks) > 0 {
		return fmt.Sprintf("chunk %d, %d tasks from %v", a.Index, len(a.Tasks), a.Tasks[0])
	}
	return fmt.Sprintf("chunk %d, %v", a.Index, solver.Chunk{N: a.N, Prefix: a.Prefix})
}

// uniqueWhileLive makes a job unique among the jobs of its kind and unique
// arguments that wait or run: a finished one does not count, so that a
// board can be asked for again (to resume it after a failure, or to close
// it). River requires the four waiting and running states in the set.
var uniqueWhileLive = river.UniqueOpts{
	ByArgs: true,
	ByState: []rivertype.JobState{
		rivertype.JobStateAvailable,
		rivertype.JobStatePending,
		rivertype.JobStateRetryable,
		rivertype.JobStateRunning,
		rivertype.JobStateScheduled,
	},
}

// KindFilteredChunk is the job kind of a chunk of a filtered count.
const KindFilteredChunk = "filtered_count_chunk"

// FilteredChunkArgs is chunk Index of the count of board N under Filter
// (in JSON its canonical text, solver.Filter.Key): Index into
// solver.PlanFilteredCount's chunks, which are the same in every process.
// It is unique by all three while it waits or runs.
type FilteredChunkArgs struct {
	N      int           `json:"n" river:"unique"`
	Filter solver.Filter `json:"filter" river:"unique"`
	Index  int           `json:"index" river:"unique"`
}

// Kind implements river.JobArgs.
func (FilteredChunkArgs) Kind() string { return KindFilteredChunk }

// InsertOpts implements river.JobArgsWithInsertOpts: River's default
// queue, next to the boards' chunks.
func (FilteredChunkArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: uniqueWhileLive}
}

func (a FilteredChunkArgs) String() string {
	return fmt.Sprintf("chunk %d of the count of N=%d under %q", a.Index, a.N, a.Filter.Key())
}
