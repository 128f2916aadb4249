package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
)

// BoardLister reads the boards' rows; a store.Reader is one.
type BoardLister interface {
	Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error)
}

// JobCounter counts the job system's jobs; the precompute engine is one.
type JobCounter interface {
	JobCounts(ctx context.Context) ([]precompute.JobCount, error)
}

// WatchDatabase adds the metrics read from the database at each scrape:
// boards by state, solutions stored, and, when jobs is not nil, River's
// jobs by kind and state. Each scrape reads them within timeout; when the
// database fails to answer, they are left out of that scrape and
// nqueens_database_up says 0, so that the scrape itself succeeds (why is
// logged at debug level: the database's outage is logged elsewhere).
func (m *Metrics) WatchDatabase(boards BoardLister, jobs JobCounter, timeout time.Duration, logger *slog.Logger) {
	m.reg.MustRegister(&databaseCollector{boards: boards, jobs: jobs, timeout: timeout, logger: logger})
}

var (
	boardsDesc = prometheus.NewDesc("nqueens_boards",
		"Boards in the store by state (pending, running, done, failed).", []string{"state"}, nil)
	solutionsDesc = prometheus.NewDesc("nqueens_solutions_stored",
		"Solutions kept in the store, over all boards (those still running included).", nil, nil)
	jobsDesc = prometheus.NewDesc("nqueens_river_jobs",
		"River's jobs (river_job, every process's) by kind and state.", []string{"kind", "state"}, nil)
	upDesc = prometheus.NewDesc("nqueens_database_up",
		"1 when the last scrape read the database's metrics, 0 when the database failed to answer.", nil, nil)
)

// databaseCollector reads its metrics from the database at scrape time:
// they describe every process's work, not this process's.
type databaseCollector struct {
	boards  BoardLister
	jobs    JobCounter
	timeout time.Duration
	logger  *slog.Logger
}

func (c *databaseCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- boardsDesc
	ch <- solutionsDesc
	ch <- jobsDesc
	ch <- upDesc
}

func (c *databaseCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	up := 1.0
	if err := c.collectBoards(ctx, ch); err != nil {
		c.logger.Debug("metrics: reading the boards", "err", err)
		up = 0
	}
	if c.jobs != nil {
		if err := c.collectJobs(ctx, ch); err != nil {
			c.logger.Debug("metrics: counting the jobs", "err", err)
			up = 0
		}
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up)
}

func (c *databaseCollector) collectBoards(ctx context.Context, ch chan<- prometheus.Metric) error {
	boards, err := c.boards.Boards(ctx)
	if err != nil {
		return err
	}
	byState := map[store.BoardState]int{store.Pending: 0, store.Running: 0, store.Done: 0, store.Failed: 0}
	var stored uint64
	for _, b := range boards {
		byState[b.State]++
		if b.StoresSolutions {
			stored += b.SolutionsDone
		}
	}
	for state, n := range byState {
		ch <- prometheus.MustNewConstMetric(boardsDesc, prometheus.GaugeValue, float64(n), string(state))
	}
	ch <- prometheus.MustNewConstMetric(solutionsDesc, prometheus.GaugeValue, float64(stored))
	return nil
}

// collectJobs reports every state of both job kinds, zeros included, so
// that the series do not come and go.
func (c *databaseCollector) collectJobs(ctx context.Context, ch chan<- prometheus.Metric) error {
	counts, err := c.jobs.JobCounts(ctx)
	if err != nil {
		return err
	}
	type key struct{ kind, state string }
	byKey := map[key]int64{}
	for _, kind := range []string{precompute.KindBoard, precompute.KindChunk} {
		for _, state := range rivertype.JobStates() {
			byKey[key{kind, string(state)}] = 0
		}
	}
	for _, jc := range counts {
		byKey[key{jc.Kind, string(jc.State)}] += jc.Count
	}
	for k, n := range byKey {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), k.kind, k.state)
	}
	return nil
}
