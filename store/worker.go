package store

import (
	"time"
	"unicode/utf8"
)

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

// CheckWorkerID checks a worker's id: 1 to MaxWorkerIDLen bytes of UTF-8.
func CheckWorkerID(id string) error {
	if id == "" || len(id) > MaxWorkerIDLen || !utf8.ValidString(id) {
		return Errorf(EINVALID, "a worker id is 1 to %d bytes of UTF-8, got %d bytes", MaxWorkerIDLen, len(id))
	}
	return nil
}
