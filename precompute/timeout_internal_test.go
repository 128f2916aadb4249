package precompute

import (
	"database/sql"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/nqueens/nqueens/solver"
)

// TestChunkTimeout: River gives a chunk job (and its own rescuer reads)
// Config.JobTimeout, or chunkTimeoutFactor times the chunk's expected time
// when that is more, so that a live task of a large counts-only board is
// never cancelled as hung: N=27's take about 4 days each on one core.
func TestChunkTimeout(t *testing.T) {
	t.Parallel()
	const floor = time.Hour
	w := &chunkWorker[*sql.Tx, *riversqlite.Driver]{e: &Engine[*sql.Tx]{cfg: Config{JobTimeout: floor}}}
	timeout := func(a ChunkArgs) time.Duration { return w.Timeout(&river.Job[ChunkArgs]{Args: a}) }

	if got := timeout(ChunkArgs{N: 16, Prefix: solver.Placement{0, 2, 4}}); got != floor {
		t.Errorf("a chunk of a stored board: %s, want the job timeout, %s", got, floor)
	}
	prev := time.Duration(0)
	for n := 17; n <= MaxN; n++ {
		tasks, err := solver.Tasks(n)
		if err != nil {
			t.Fatal(err)
		}
		a := ChunkArgs{N: n, Tasks: tasks[:tasksPerChunk(n)]}
		expected := time.Duration(len(a.Tasks)) * taskTime(n)
		got := timeout(a)
		if got < floor || got < chunkTimeoutFactor*expected || got < prev {
			t.Errorf("N=%d, %d tasks expected to take %s: timeout %s; want at least %s, %d times that, and no less than N=%d's %s",
				n, len(a.Tasks), expected, got, floor, chunkTimeoutFactor, n-1, prev)
		}
		prev = got
	}
	if day := taskTime(27) / (24 * time.Hour); day < 3 || day > 5 {
		t.Errorf("a task of N=27 is expected to take %s, the documented figure is about 4 days", taskTime(27))
	}

	tasks, _ := solver.Tasks(27)
	if got := timeout(ChunkArgs{N: 27, Tasks: tasks[:256]}); got != maxChunkTimeout {
		t.Errorf("256 tasks of N=27: timeout %s, want the bound %s (not an overflow)", got, maxChunkTimeout)
	}
}
