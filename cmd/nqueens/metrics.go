package main

import (
	"context"
	"errors"
	"time"

	"github.com/nqueens/nqueens/precompute"
)

// metricsDatabaseTimeout bounds the database reads of one /metrics scrape.
const metricsDatabaseTimeout = 2 * time.Second

// serveJobCounter counts the jobs of serve's database for the metrics,
// once the workers run.
type serveJobCounter struct{ up *startup }

func (c serveJobCounter) JobCounts(ctx context.Context) ([]precompute.JobCount, error) {
	_, w, _ := c.up.state()
	switch {
	case w == nil:
		return nil, errors.New("the database is not open yet")
	case w.jobs == nil:
		return nil, nil // the workers are off: River's tables are missing or out of date
	}
	return w.jobs.JobCounts(ctx)
}
