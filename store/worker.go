package store

import "time"

// Worker is a precompute worker process (serve, worker, precompute --wait)
// as its heartbeats left it in the database: the job system reads them to
// tell a worker that runs long from one that is gone.
type Worker struct {
	ID        string
	StartedAt time.Time
	// Unseen is how long ago its last heartbeat was, by the clock of the
	// database, so that the clocks of the workers' machines do not matter.
	Unseen time.Duration
}

// MaxWorkerIDLen is the longest worker id, in bytes.
const MaxWorkerIDLen = 128
