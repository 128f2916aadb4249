package precompute_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/nqueens/nqueens/internal/boardtest"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// The tests run the engine for real: River's own client and migrations
// over a real database on each backend, Postgres (a schema of the test's
// own on NQUEENS_TEST_DATABASE_URL) and SQLite (a file in the test's
// temporary directory). Expected counts come from the published table
// (internal/oeis), expected solutions from the solver.

// onBackends runs test on each backend, in parallel.
func onBackends(t *testing.T, test func(t *testing.T, backend string)) {
	t.Parallel()
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			test(t, backend)
		})
	}
}

// engine is a precompute.Engine, whatever its driver.
type engine interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Precompute(ctx context.Context, req store.BoardRequest, storeSolutions *bool) (store.Board, error)
	JobCounts(ctx context.Context) ([]precompute.JobCount, error)
	ID() string
	PrecomputeCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error)
}

// bundle is what one test works with.
type bundle struct {
	ctx    context.Context
	store  testStore // the real store, without the faults the engine got
	engine engine
	// jobs lists the jobs of a kind, every state, in insertion order.
	jobs func(t *testing.T, kind string) []*rivertype.JobRow
	// insert queues a job as it is, e.g. a duplicate of one done.
	insert func(t *testing.T, args river.JobArgs)
	// peer makes another engine over the same database, as another
	// worker process would have (not started; stopped when the test ends).
	peer func(t *testing.T, o options) *bundle
}

// options adjust a test's setup.
type options struct {
	// config, when set, changes the engine's configuration
	// (precompute.DefaultConfig, logging to the test).
	config func(*precompute.Config)
	// faults are those of the store the engine writes through.
	faults faults
}

// faults are a test's faults in the store the engine writes through: each
// runs before the write it is named after, and an error refuses that
// write. A nil one is no fault.
type faults struct {
	writeChunk         func(ctx context.Context, w store.ChunkWrite) error
	writeFilteredChunk func(ctx context.Context, w store.FilteredChunkWrite) error
	seeWorker          func(ctx context.Context, id string) error
}

// faulty is a store with faults, whatever its transaction type.
type faulty[TTx any] struct {
	store.Store[TTx]
	f faults
}

func (s faulty[TTx]) WriteChunk(ctx context.Context, w store.ChunkWrite, inTx store.TxFunc[TTx]) (bool, error) {
	if s.f.writeChunk != nil {
		if err := s.f.writeChunk(ctx, w); err != nil {
			return false, err
		}
	}
	return s.Store.WriteChunk(ctx, w, inTx)
}

func (s faulty[TTx]) WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite, inTx store.TxFunc[TTx]) (store.FilteredCount, error) {
	if s.f.writeFilteredChunk != nil {
		if err := s.f.writeFilteredChunk(ctx, w); err != nil {
			return store.FilteredCount{}, err
		}
	}
	return s.Store.WriteFilteredChunk(ctx, w, inTx)
}

func (s faulty[TTx]) SeeWorker(ctx context.Context, id string) error {
	if s.f.seeWorker != nil {
		if err := s.f.seeWorker(ctx, id); err != nil {
			return err
		}
	}
	return s.Store.SeeWorker(ctx, id)
}

// testStore is the store as a test reads and writes it itself, whichever
// the backend: its reads, and its writes without hooks.
type testStore interface {
	store.Reader
	Chunks(ctx context.Context, n int) ([]store.ChunkRecord, error)
	PlanBoard(ctx context.Context, plan store.BoardPlan) (store.Board, bool, error)
	WriteChunk(ctx context.Context, w store.ChunkWrite) (bool, error)
}

// hookless is a store as a testStore.
type hookless[TTx any] struct{ store.Store[TTx] }

func (h hookless[TTx]) PlanBoard(ctx context.Context, plan store.BoardPlan) (store.Board, bool, error) {
	return h.Store.PlanBoard(ctx, plan, nil)
}

func (h hookless[TTx]) WriteChunk(ctx context.Context, w store.ChunkWrite) (bool, error) {
	return h.Store.WriteChunk(ctx, w, nil)
}

// setup opens a fresh database on the backend, applies River's
// migrations and makes an engine over it (not started; stopped when the
// test ends).
func setup(t *testing.T, backend string, o options) *bundle {
	t.Helper()
	switch backend {
	case "postgres":
		st := pgtest.OpenSchema(t)
		return newBundle(t, st, o, riverpgxv5.New(st.Pool()))
	case "sqlite":
		st := sqlitetest.OpenTemp(t)
		return newBundle(t, st, o, riversqlite.New(st.Writer()))
	}
	t.Fatalf("unknown backend %q", backend)
	return nil
}

// engineConfig is the engine's configuration for test t.
func (o options) engineConfig(t *testing.T) precompute.Config {
	cfg := precompute.DefaultConfig()
	cfg.Logger = testLogger(t)
	if o.config != nil {
		o.config(&cfg)
	}
	return cfg
}

// newBundle makes an engine over st, with o's faults and configuration,
// whose jobs live behind driver.
func newBundle[TTx any, TDriver riverdriver.Driver[TTx]](t *testing.T, st store.Store[TTx], o options, driver TDriver) *bundle {
	t.Helper()
	if err := precompute.MigrateUp(t.Context(), driver); err != nil {
		t.Fatal(err)
	}
	e, err := precompute.New[TTx](faulty[TTx]{Store: st, f: o.faults}, driver, o.engineConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := e.Stop(ctx); err != nil {
			t.Errorf("stopping the engine: %v", err)
		}
	})
	list := func(t *testing.T, kind string) []*rivertype.JobRow {
		t.Helper()
		var out []*rivertype.JobRow
		params := river.NewJobListParams().Kinds(kind).First(10_000)
		for {
			res, err := e.Client().JobList(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res.Jobs...)
			if len(res.Jobs) < 10_000 {
				return out
			}
			params = params.After(res.LastCursor)
		}
	}
	peer := func(t *testing.T, o options) *bundle {
		t.Helper()
		return newBundle(t, st, o, driver)
	}
	insert := func(t *testing.T, args river.JobArgs) {
		t.Helper()
		if _, err := e.Client().Insert(t.Context(), args, nil); err != nil {
			t.Fatal(err)
		}
	}
	return &bundle{ctx: t.Context(), store: hookless[TTx]{st}, engine: e, jobs: list, insert: insert, peer: peer}
}

// start starts the engine's workers.
func (b *bundle) start(t *testing.T) {
	t.Helper()
	if err := b.engine.Start(b.ctx); err != nil {
		t.Fatal(err)
	}
}

// ask asks for boards ns as the storage limit says.
func (b *bundle) ask(t *testing.T, ns ...int) {
	t.Helper()
	for _, n := range ns {
		if _, err := b.engine.Precompute(b.ctx, store.BoardRequest{N: n}, nil); err != nil {
			t.Fatalf("Precompute(%d): %v", n, err)
		}
	}
}

// waitFinished waits until the boards ns are done or failed, and returns
// them. The bound only stops a test that hangs: under the race detector,
// on a loaded machine, SQLite writes N=13 ten times slower than usual, and
// TestStopAndResume took over two minutes beside another test.
func (b *bundle) waitFinished(t *testing.T, ns ...int) map[int]store.Board {
	t.Helper()
	return boardtest.WaitFinished(t, b.store, 5*time.Minute, ns...)
}

// checkChunksOnce checks that every chunk of board n was done once: each
// chunk row is done, and River's table holds exactly one completed job
// for it and no other job of that chunk.
func checkChunksOnce(t *testing.T, b *bundle, n int) {
	t.Helper()
	recs, err := b.store.Chunks(b.ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	completed := map[int]int{}
	for _, j := range b.jobs(t, precompute.KindChunk) {
		var args precompute.ChunkArgs
		if err := unmarshal(j.EncodedArgs, &args); err != nil {
			t.Fatal(err)
		}
		if args.N != n {
			continue
		}
		if j.State != rivertype.JobStateCompleted {
			t.Errorf("N=%d %v: a job in state %s", n, args, j.State)
			continue
		}
		completed[args.Index]++
	}
	for _, r := range recs {
		if r.Counts == nil || r.DoneAt.IsZero() || completed[r.Index] != 1 {
			t.Errorf("N=%d chunk %d: done %t, %d completed jobs; want done by one job", n, r.Index, !r.DoneAt.IsZero(), completed[r.Index])
		}
	}
	if len(completed) != len(recs) {
		t.Errorf("N=%d: completed jobs for %d chunks, the board has %d", n, len(completed), len(recs))
	}
}

func boolPtr(v bool) *bool { return &v }

func rangeN(lo, hi int) []int {
	var out []int
	for n := lo; n <= hi; n++ {
		out = append(out, n)
	}
	return out
}
