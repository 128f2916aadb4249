package precompute

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// A worker process that dies (SIGKILL, its machine lost) leaves its jobs
// in River's table as running, and River alone would run them again only
// once they have run past their timeout: an hour by default, days for the
// tasks of large counts-only boards, since a job that runs long is not
// dead. So every working process records a heartbeat (the workers table,
// every Config.Heartbeat), and every quarter of Config.RescueAfter looks
// for running jobs whose worker (the last client in attempted_by) has no
// heartbeat that recent: those it makes available again, at once, for
// any process to take. A job whose worker is alive is never rescued,
// however long it runs.
//
// If a worker only seemed gone (cut off from the database for longer than
// RescueAfter) and still finishes its job, the chunk has been computed
// twice but is written once: WriteChunk writes nothing for a chunk
// already done, and completing a job that is no longer running changes
// nothing.

// newWorkerID names this process: host, process id and a random part, so
// that no two processes share one, even on one host or in containers with
// the same name. River's default (host and start time) could.
func newWorkerID() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, host)
	var random [4]byte
	rand.Read(random[:])
	return fmt.Sprintf("%s_%d_%s", cmp.Or(host[:min(len(host), 60)], "unknown_host"), os.Getpid(), hex.EncodeToString(random[:]))
}

// rescueBatch is how many running jobs a rescue pass reads at a time.
const rescueBatch = 1000

// forgetAfter is how long a worker may be gone before its row is deleted:
// its jobs were rescued long before.
const forgetAfter = time.Hour

// rescue makes the jobs of workers gone available again (see above). It
// waits until this process's own heartbeats have held for RescueAfter:
// after a start, or an outage of the database, the others need as long to
// record theirs.
func (e *Engine[TTx]) rescue(ctx context.Context) {
	if e.heartbeatsSince.IsZero() || time.Since(e.heartbeatsSince) < e.cfg.RescueAfter {
		return
	}
	workers, err := e.store.Workers(ctx)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			e.log.Warn("rescuing the jobs of workers gone: reading the heartbeats", "err", err)
		}
		return
	}
	alive := map[string]bool{}
	for _, w := range workers {
		switch {
		case w.Unseen < e.cfg.RescueAfter:
			alive[w.ID] = true
		case w.Unseen > forgetAfter:
			if err := e.store.ForgetWorker(ctx, w.ID); err != nil && !errors.Is(err, context.Canceled) {
				e.log.Warn("forgetting a worker gone", "worker", w.ID, "err", err)
			}
		}
	}
	if err := e.rescueJobs(ctx, alive); err != nil && !errors.Is(err, context.Canceled) {
		e.log.Warn("rescuing the jobs of workers gone", "err", err)
	}
}

// rescueJobs makes available the jobs running since before RescueAfter
// whose worker is not alive, and gives up (discards) those that have had
// all their attempts, failing their boards.
//
// This is the one place that changes River's job table other than through
// River's client: River has no call that makes a running job available.
// It goes through River's driver (JobGetStuck and JobRescueMany, the
// queries of River's own rescuer, on both Postgres and SQLite), whose
// interface River may change between minor versions: an upgrade that
// does fails to compile here, and TestRescueGoneWorker covers the rest.
// JobRescueMany changes only a job that is still running and was fetched
// before the horizon, so a job that ended, or was fetched again since the
// read, is left alone.
func (e *Engine[TTx]) rescueJobs(ctx context.Context, alive map[string]bool) error {
	horizon := time.Now().Add(-e.cfg.RescueAfter)
	for afterID := int64(0); ; {
		jobs, err := e.db.JobGetStuck(ctx, &riverdriver.JobGetStuckParams{AfterID: afterID, Max: rescueBatch, StuckHorizon: horizon})
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		rescue := &riverdriver.JobRescueManyParams{StuckHorizon: horizon}
		var discarded []*rivertype.JobRow
		for _, job := range jobs {
			afterID = job.ID
			worker := ""
			if len(job.AttemptedBy) > 0 {
				worker = job.AttemptedBy[len(job.AttemptedBy)-1]
			}
			if alive[worker] {
				continue
			}
			attemptErr, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: job.Attempt,
				Error: fmt.Sprintf("worker %q is gone (no heartbeat for %s): the job was rescued", worker, e.cfg.RescueAfter)})
			if err != nil {
				return err
			}
			state, finalizedAt := rivertype.JobStateAvailable, (*time.Time)(nil)
			if job.Attempt >= job.MaxAttempts {
				state, finalizedAt = rivertype.JobStateDiscarded, &now
				discarded = append(discarded, job)
			}
			rescue.ID = append(rescue.ID, job.ID)
			rescue.Error = append(rescue.Error, attemptErr)
			rescue.FinalizedAt = append(rescue.FinalizedAt, finalizedAt)
			rescue.ScheduledAt = append(rescue.ScheduledAt, now)
			rescue.State = append(rescue.State, string(state))
			e.log.Warn("rescued a job of a worker gone", "worker", worker, "job", job.ID, "kind", job.Kind,
				"args", string(job.EncodedArgs), "attempt", job.Attempt, "state", state)
		}
		if len(rescue.ID) > 0 {
			if _, err := e.db.JobRescueMany(ctx, rescue); err != nil {
				return err
			}
		}
		for _, job := range discarded {
			var a struct {
				N int `json:"n"`
			}
			if json.Unmarshal(job.EncodedArgs, &a) == nil && a.N > 0 {
				e.failBoard(a.N, fmt.Sprintf("a %s job (%s) was given up: its worker was gone on each of its %d attempts",
					job.Kind, job.EncodedArgs, job.Attempt))
			}
		}
		if len(jobs) < rescueBatch {
			return nil
		}
	}
}
