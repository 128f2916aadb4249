// Package precompute fills the store in the background, board by board,
// with River jobs (docs/ARCHITECTURE.md, "Chunks"). A board job plans a board
// N and queues one chunk job per chunk in the transaction that records the
// plan; a chunk job computes its chunk and writes it, its chunk row and its
// own completion in one transaction, so that a crash loses nothing and
// duplicates nothing, and a retry redoes that chunk only. The last chunk
// written (decided in the database) closes the board.
//
// Boards up to the storage limit keep every solution, and their chunks are
// prefixes (solver.Chunk). Above it they keep counts only, and their chunks
// are the counter's own tasks (solver.Task), so that counting through jobs
// searches an eighth of the solutions, as solver.Count does.
//
// The same job kinds run on Postgres (riverpgxv5, any number of worker
// processes sharing the chunks) and on the embedded SQLite file
// (riversqlite, on the store's one write connection).
//
// A worker process may die at any moment (killed, its machine lost): its
// running jobs are then run again by the others once its heartbeat is
// missing for Config.RescueAfter (rescue.go), however long the jobs run.
package precompute

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/tracing"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// jobsPerWorker is how many chunk jobs run at once per Config.Workers. A
// job's round trips to the database (River fetching it, the store writing
// it, River completing it) take several milliseconds, as long as the
// computing of many chunks, so that with fewer jobs the workers would
// wait: counting N=16 through one worker, a job per task of the counter,
// took 24.1 s with two jobs at once and 8.7 s with four. The cost: a
// process holds jobs waiting for a worker that others could run, at most
// three per worker, which matters only at the very end of a board (and
// counts against the job's timeout: chunkTimeout).
const jobsPerWorker = 4

// MaxN is the largest board the engine computes. Counting N=27 took a
// cluster; beyond it the counts are not known.
const MaxN = 27

// SolverVersion is recorded with every board the engine plans. Change it
// when the solver's chunks or counts could change.
const SolverVersion = "nqueens-solver-1"

// Config configures an Engine. Start from DefaultConfig: New takes every
// field as it is and refuses a value it cannot work with.
type Config struct {
	// Workers is how many chunks this process computes at once (at least
	// 1). More chunk jobs run at once (jobsPerWorker per worker): a job
	// spends much of its time waiting on the database, and while some
	// write, the others compute. A process that only asks for boards
	// never calls Start.
	Workers int
	// StoreMaxN is the storage limit, 1 to solver.MaxSearchN: boards up to
	// it keep every solution, boards above it their counts only.
	StoreMaxN int
	// MaxAttempts is how many times a job runs before it is given up (at
	// least 1); a chunk given up fails its board, with the error.
	MaxAttempts int
	// RetryPolicy says when a failed job runs again; nil: River's own
	// (attempt⁴ seconds, with jitter).
	RetryPolicy river.ClientRetryPolicy
	// JobTimeout is how long a job may run before River cancels it and
	// runs it again later: the bound on a job that hangs. A chunk
	// expected to run longer gets more (chunkTimeout): chunks of stored
	// boards take milliseconds, but a task of a counts-only board takes
	// 2.4 ms on average at N=17 on one core and about 6.5 times more for
	// each N above: 0.7 s at N=20, 3 minutes at N=23, 4 days at N=27. A
	// worker that dies is noticed by its missing heartbeat (RescueAfter),
	// not by this.
	JobTimeout time.Duration
	// RescueAfter is how long a worker process may go without a heartbeat
	// before the jobs it was running are run again by others (at least
	// minHeartbeatsToRescue heartbeats). Each process looks for such jobs
	// every quarter of it, so a killed worker's jobs run again within
	// about 1.25 times RescueAfter (rescue.go).
	RescueAfter time.Duration
	// StopTimeout is how long Stop lets the running chunks commit before
	// cancelling them; a cancelled chunk rolls back and runs again later,
	// here or elsewhere. 0: cancel them at once.
	StopTimeout time.Duration
	// Heartbeat is how often this process records that it is alive (the
	// workers table, which RescueAfter reads) and refreshes the updated_at
	// of the boards whose chunks run here, so that progress readers see
	// they are alive.
	Heartbeat time.Duration
	// OnBoardChanged, when set, is told of every board this process
	// starts, finishes or fails (serve's subscriptions follow it at once
	// instead of at their next look at the store).
	OnBoardChanged func(n int)
	Logger         *slog.Logger
	// TracerProvider, unless nil or the no-op one, makes a span of each
	// job worked and of each insertion of jobs (River's OpenTelemetry
	// middleware, otelriver); a job's span links to the span that asked
	// for it.
	TracerProvider trace.TracerProvider
}

// DefaultConfig is the configuration the commands start with (their
// flags take their defaults from here).
func DefaultConfig() Config {
	return Config{
		// One chunk per core: computing is CPU-bound.
		Workers: runtime.GOMAXPROCS(0),
		// docs/ARCHITECTURE.md, "Counts only above a size": the 14,772,512 solutions
		// of N=16 are stored, N=17's 95,815,104 would be 6.5 times more.
		StoreMaxN: 16,
		// A chunk that fails five times fails for a reason a retry does
		// not mend; River's backoff (attempt⁴ s) spreads the five over
		// about 6 minutes, past a database's restart.
		MaxAttempts: 5,
		// A hung job is retried within the hour; a chunk expected to run
		// longer gets more (chunkTimeout).
		JobTimeout: time.Hour,
		// A killed worker's jobs run again within about 25 s, well within
		// a minute (docs/ARCHITECTURE.md, "Rescue"), and a live worker would have to
		// miss twenty heartbeats in a row to be taken for gone.
		RescueAfter: 20 * time.Second,
		// Chunks of stored boards commit in milliseconds; 10 s lets them
		// all finish on a busy database.
		StopTimeout: 10 * time.Second,
		// One small write a second per process: the database hardly
		// notices, and RescueAfter spans twenty of them.
		Heartbeat: time.Second,
		Logger:    slog.Default(),
	}
}

// minHeartbeatsToRescue is how many heartbeats RescueAfter must span at
// least, so that one slow heartbeat (a busy database, a pause) does not
// make a live worker look gone.
const minHeartbeatsToRescue = 5

// Check says which field of c New refuses, if any, and what is allowed
// (a *configcheck.Error).
func (c Config) Check() error {
	err := cmp.Or(
		configcheck.AtLeast("Workers", c.Workers, 1),
		configcheck.Between("StoreMaxN", c.StoreMaxN, 1, solver.MaxSearchN, ""),
		configcheck.AtLeast("MaxAttempts", c.MaxAttempts, 1),
		configcheck.Positive("JobTimeout", c.JobTimeout),
		configcheck.Positive("Heartbeat", c.Heartbeat),
		configcheck.NotNegative("StopTimeout", c.StopTimeout),
		configcheck.Logger("Logger", c.Logger == nil),
	)
	if err == nil && c.RescueAfter < minHeartbeatsToRescue*c.Heartbeat {
		return configcheck.Errorf("RescueAfter", "must be at least %s (%d heartbeats), got %s",
			minHeartbeatsToRescue*c.Heartbeat, minHeartbeatsToRescue, c.RescueAfter)
	}
	return err
}

// Engine asks for boards and works their jobs. TTx is the River driver's
// transaction: pgx.Tx on Postgres, *sql.Tx on SQLite.
type Engine[TTx any] struct {
	store   store.Store[TTx]
	client  *river.Client[TTx]
	db      riverdriver.Executor // for JobCounts and the rescue (rescue.go)
	cfg     Config
	log     *slog.Logger
	running *runningBoards
	// computing holds a token per chunk being computed: Workers at most.
	computing chan struct{}
	// id names this process: its River client id, which River records
	// in every job it fetches, and its row in the workers table.
	id string
	// heartbeatsSince is when this process's heartbeats last began to
	// succeed (zero while they fail); only the upkeep goroutine uses it,
	// once started.
	heartbeatsSince time.Time

	stopUpkeep context.CancelFunc
	upkeepDone chan struct{}
}

// New returns an engine over st whose jobs live in the database behind
// driver: the same database as st's (riverpgxv5 over the Postgres store's
// pool, riversqlite over the SQLite store's write connection), so that a
// chunk's rows and its job's completion commit together. River's tables
// must exist (MigrateUp).
func New[TTx any, TDriver riverdriver.Driver[TTx]](st store.Store[TTx], driver TDriver, cfg Config) (*Engine[TTx], error) {
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("precompute: %w", err)
	}
	e := &Engine[TTx]{store: st, db: driver.GetExecutor(), cfg: cfg, log: cfg.Logger, id: newWorkerID(),
		running: newRunningBoards(), computing: make(chan struct{}, cfg.Workers)}
	workers := river.NewWorkers()
	river.AddWorker(workers, &boardWorker[TTx]{e: e})
	river.AddWorker(workers, &chunkWorker[TTx, TDriver]{e: e})
	river.AddWorker(workers, &filteredChunkWorker[TTx, TDriver]{e: e})
	var middleware []rivertype.Middleware
	if tracing.Records(cfg.TracerProvider) {
		middleware = append(middleware, otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
			TracerProvider: cfg.TracerProvider, EnableTracePropagation: true, EnableWorkSpanJobKindSuffix: true,
			// The metrics are Prometheus's (/metrics).
			MeterProvider: metricnoop.NewMeterProvider(),
		}))
	}
	client, err := river.NewClient(driver, &river.Config{
		Middleware: middleware,
		Queues: map[string]river.QueueConfig{
			QueueBoards:        {MaxWorkers: 1},
			river.QueueDefault: {MaxWorkers: jobsPerWorker * cfg.Workers},
		},
		Workers: workers,
		// Chunks are small (a few thousand solutions), so what limits the
		// throughput of a board is how soon a worker fetches the next one:
		// River's default waits 100 ms between fetches.
		FetchCooldown: 2 * time.Millisecond,
		ID:            e.id,
		JobTimeout:    cfg.JobTimeout,
		// River's own rescuer runs a job again once it has run past its
		// timeout (a chunk's own: chunkTimeout) and this: it was cancelled
		// and has not ended, so it hangs. A worker that is gone is noticed
		// sooner, by its heartbeat (rescue.go).
		RescueStuckJobsAfter: cfg.JobTimeout + max(cfg.JobTimeout/10, time.Second),
		MaxAttempts:          cfg.MaxAttempts,
		RetryPolicy:          cfg.RetryPolicy,
		SoftStopTimeout:      cfg.StopTimeout,
		Logger:               cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("precompute: %w", err)
	}
	e.client = client
	return e, nil
}

// Client is the River client, e.g. for River UI.
func (e *Engine[TTx]) Client() *river.Client[TTx] { return e.client }

// Start starts working jobs: Workers at once, until Stop or ctx ends.
func (e *Engine[TTx]) Start(ctx context.Context) error {
	// The first heartbeat goes before the first job is fetched, so that no
	// other process takes this one for gone.
	if err := e.store.SeeWorker(ctx, e.id); err != nil {
		return fmt.Errorf("precompute: recording the worker's heartbeat: %w", err)
	}
	e.heartbeatsSince = time.Now()
	if err := e.client.Start(ctx); err != nil {
		return fmt.Errorf("precompute: starting the workers: %w", err)
	}
	uctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.stopUpkeep, e.upkeepDone = cancel, make(chan struct{})
	go e.upkeep(uctx)
	e.log.Info("working jobs", "worker", e.id, "workers", e.cfg.Workers, "rescue_after", e.cfg.RescueAfter.String())
	return nil
}

// Stop stops working jobs: no new job starts, the running ones have
// Config.StopTimeout to commit, then their contexts are cancelled and they
// roll back (each runs again later, here or in another process). It
// returns when they have all ended, or with ctx's error. A process that
// stopped cleanly is forgotten from the workers table; otherwise its
// heartbeat goes missing and its jobs are rescued.
func (e *Engine[TTx]) Stop(ctx context.Context) error {
	stop := e.client.Stop
	if e.cfg.StopTimeout == 0 {
		stop = e.client.StopAndCancel // River's SoftStopTimeout 0 would wait for ever
	}
	err := stop(ctx)
	if e.stopUpkeep == nil {
		return err // never started
	}
	e.stopUpkeep()
	<-e.upkeepDone
	e.stopUpkeep = nil
	if err == nil {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if ferr := e.store.ForgetWorker(fctx, e.id); ferr != nil {
			e.log.Warn("forgetting this worker's heartbeat; it will go stale", "worker", e.id, "err", ferr)
		}
	}
	return err
}

// ID is this process's worker id: its River client id, as River records
// it in the jobs it fetches, and its row in the workers table.
func (e *Engine[TTx]) ID() string { return e.id }

// Precompute asks for board req.N to be computed and kept: every solution
// when storeSolutions is true, only the counts when false, and as the
// storage limit says when nil. It returns the board's row after the
// request. A board that is running or done is returned unchanged, and no
// job is queued; a pending or failed one gets a board job (one per N:
// River drops a duplicate while one waits or runs), which plans it, or
// resumes a failed one under its own plan. req.RequestedBy is kept with
// the board's row when this call makes it (the first request); asking
// again changes no requester, as it changes no plan.
func (e *Engine[TTx]) Precompute(ctx context.Context, req store.BoardRequest, storeSolutions *bool) (store.Board, error) {
	n := req.N
	if n < 1 || n > MaxN {
		return store.Board{}, nqueens.Errorf(nqueens.EINVALID, "the precompute takes N from 1 to %d, got %d", MaxN, n)
	}
	stores := n <= e.cfg.StoreMaxN
	if storeSolutions != nil {
		if *storeSolutions && !stores {
			return store.Board{}, nqueens.Errorf(nqueens.EINVALID,
				"N=%d is above the storage limit (N ≤ %d): only its counts can be kept", n, e.cfg.StoreMaxN)
		}
		stores = *storeSolutions
	}
	// A pending row at once, so that readers see the request (and who
	// made it); the store checks the request, whether or not the row is
	// new.
	b, _, err := e.store.RequestBoard(ctx, req)
	if err != nil {
		return store.Board{}, err
	}
	// A board that keeps counts only is ranked by its rank index, asked
	// for when the board is done (finish); asking for the board again
	// asks for it too: a board counted before there were indexes gets
	// one, a failed index resumes.
	if b.State == store.Done && !b.StoresSolutions && n <= RanksMaxN {
		if _, err := e.PrecomputeRanks(ctx, n); err != nil {
			return store.Board{}, fmt.Errorf("precompute: asking for the rank index of N=%d: %w", n, err)
		}
	}
	if b.State == store.Running || b.State == store.Done {
		return b, nil
	}
	args := BoardArgs{N: n, StoreSolutions: stores, RequestedBy: req.RequestedBy}
	if _, err := e.client.Insert(ctx, args, nil); err != nil {
		return store.Board{}, fmt.Errorf("precompute: queueing the board job of N=%d: %w", n, err)
	}
	return b, nil
}

// plan is how board args are computed.
func plan(a BoardArgs) store.BoardPlan {
	if !a.StoreSolutions {
		return store.BoardPlan{N: a.N, Tasks: true, TasksPerChunk: tasksPerChunk(a.N), SolverVersion: SolverVersion, RequestedBy: a.RequestedBy}
	}
	return store.BoardPlan{N: a.N, ChunkDepth: solver.DefaultChunkDepth(a.N), StoresSolutions: true, SolverVersion: SolverVersion, RequestedBy: a.RequestedBy}
}

// tasksPerChunk is how many of the counter's tasks make a chunk of a
// counts-only board. A job costs a few milliseconds of round trips, and
// of CPU in River and the database driver, besides its chunk, which at
// one task a job (a task of N=17 takes about 2 ms) would cost more than
// the counting. So tasks are grouped to about 0.25 s of counting a chunk
// while they are small (104 at N=17, 16 at N=18, 2 at N=19, one each from
// N=20): through jobs one worker process then counts at the counter's own
// speed, and two nearly twice as fast (docs/PERFORMANCE.md, "Precompute";
// the other sizes tried, docs/PERFORMANCE-HISTORY.md). But there are 16
// chunks at least, for the workers to share, and at most 256 tasks a
// chunk (a chunk row's key is 4 bytes a task).
func tasksPerChunk(n int) int {
	tasks, err := solver.Tasks(n)
	if err != nil {
		return 1
	}
	size := int(math.Round(float64(250*time.Millisecond) / float64(taskTime(n))))
	return max(1, min(size, (len(tasks)+15)/16, 256))
}

// taskTime is how long one of the counter's tasks of N takes on average,
// on one core of the project's machine: 2.4 ms at N=17, and about 6.5
// times more for each N above.
func taskTime(n int) time.Duration {
	return time.Duration(float64(2400*time.Microsecond) * math.Pow(6.5, float64(n-17)))
}

// chunkTimeoutFactor is how many times its expected time a chunk may run
// before it is taken for hung. Of N=17's tasks the longest took 26 times
// the mean (the 99th percentile 5.6 times), and a job may first wait for
// up to jobsPerWorker-1 others to compute; a machine may be slower or
// busier than the project's.
const chunkTimeoutFactor = 100

// chunkTimeout is how long a chunk job may run: floor (Config.JobTimeout),
// or chunkTimeoutFactor times its expected time when that is more (a
// chunk of N=23's tasks 5 hours, of N=27's more than a year: a task that
// computes is not hung, and a worker that dies is noticed by its
// heartbeat instead).
func chunkTimeout(a ChunkArgs, floor time.Duration) time.Duration {
	if len(a.Tasks) == 0 {
		return floor // a prefix of a stored board: milliseconds
	}
	// In floating point: 256 tasks of N=27 would overflow a Duration.
	expected := float64(len(a.Tasks)) * float64(taskTime(a.N))
	return max(floor, time.Duration(min(chunkTimeoutFactor*expected, float64(maxChunkTimeout))))
}

// maxChunkTimeout bounds chunkTimeout: ten years.
const maxChunkTimeout = 10 * 365 * 24 * time.Hour

// finish closes board n once its chunks are all done. Counts that do not
// add up fail the board (FinishBoard records why): that is final, and the
// job that tried is cancelled rather than retried.
func (e *Engine[TTx]) finish(ctx context.Context, n int) error {
	b, err := e.store.FinishBoard(ctx, n)
	switch {
	case err == nil:
		e.log.Info("board done", "n", n, "solutions", b.Counts.Total, "unique", b.Counts.Unique,
			"chunks", b.ChunksTotal, "seconds", b.Duration.Seconds())
		e.changed(n)
		if !b.StoresSolutions && n <= RanksMaxN {
			// The board is done whatever becomes of its index: a failure
			// here is logged, and asking for the board again asks again.
			if fc, err := e.PrecomputeRanks(ctx, n); err != nil {
				e.log.Error("asking for the rank index of a board kept as counts only; ask for the board again", "n", n, "err", err)
			} else {
				e.log.Info("rank index asked for", "n", n, "chunks", fc.ChunksTotal)
			}
		}
		return nil
	case b.State == store.Failed:
		e.log.Error("board failed: its chunk counts do not add up", "n", n, "err", err)
		e.changed(n)
		return river.JobCancel(err)
	}
	return fmt.Errorf("closing N=%d: %w", n, err)
}

// failBoard records that board n failed, with the reason. It runs after a
// job's context may have ended, so it has its own.
func (e *Engine[TTx]) failBoard(n int, reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := e.store.FailBoard(ctx, n, reason); err != nil {
		e.log.Error("recording a board's failure", "n", n, "reason", reason, "err", err)
		return
	}
	e.log.Error("board failed", "n", n, "reason", reason)
	e.changed(n)
}

// changed tells Config.OnBoardChanged that board n changed state here.
func (e *Engine[TTx]) changed(n int) {
	if e.cfg.OnBoardChanged != nil {
		e.cfg.OnBoardChanged(n)
	}
}

// permanent reports whether a store error cannot go away by retrying: the
// job's arguments do not fit the board (a wiring mistake), or the board no
// longer runs.
func permanent(err error) bool {
	switch nqueens.ErrorCode(err) {
	case nqueens.EINVALID, nqueens.ENOTFOUND, nqueens.ECONFLICT:
		return !errors.Is(err, context.Canceled)
	}
	return false
}
