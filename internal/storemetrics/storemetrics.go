// Package storemetrics measures a store.Store: it wraps one and records
// how long each call takes, by method, and which fail, by method and
// error code, in Prometheus metrics.
package storemetrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Store is a store.Store whose calls are measured.
type Store struct {
	next     store.Store
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

var _ store.Store = (*Store)(nil)

// New wraps st and registers its metrics with reg.
func New(st store.Store, reg prometheus.Registerer) *Store {
	s := &Store{
		next: st,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "nqueens_store_query_duration_seconds",
			Help: "Time a store call took, by method (a page read, a chunk written, …).",
			// From a cached page read (tens of µs) to a chunk of a large
			// board written under load (seconds).
			Buckets: prometheus.ExponentialBuckets(50e-6, 4, 10),
		}, []string{"method"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nqueens_store_errors_total",
			Help: "Store calls that failed, by method and error code (unavailable, internal, …; not_found is an answer, not counted).",
		}, []string{"method", "code"}),
	}
	reg.MustRegister(s.duration, s.errors)
	return s
}

// measure starts timing a call of method; the function it returns, given
// the call's error, records it. ENOTFOUND is an answer, not a failure (a
// board nobody asked for yet).
func (s *Store) measure(method string) func(err *error) {
	start := time.Now()
	return func(err *error) {
		s.duration.WithLabelValues(method).Observe(time.Since(start).Seconds())
		if *err != nil && nqueens.ErrorCode(*err) != nqueens.ENOTFOUND {
			s.errors.WithLabelValues(method, nqueens.ErrorCode(*err)).Inc()
		}
	}
}

func (s *Store) Board(ctx context.Context, n int) (_ store.Board, err error) {
	defer s.measure("Board")(&err)
	return s.next.Board(ctx, n)
}

func (s *Store) Boards(ctx context.Context) (_ []store.Board, err error) {
	defer s.measure("Boards")(&err)
	return s.next.Boards(ctx)
}

func (s *Store) RequestBoard(ctx context.Context, req store.BoardRequest) (_ store.Board, _ bool, err error) {
	defer s.measure("RequestBoard")(&err)
	return s.next.RequestBoard(ctx, req)
}

func (s *Store) PlanBoard(ctx context.Context, plan store.BoardPlan, onClaim store.PlanTxFunc) (_ store.Board, _ bool, err error) {
	defer s.measure("PlanBoard")(&err)
	return s.next.PlanBoard(ctx, plan, onClaim)
}

func (s *Store) Chunks(ctx context.Context, n int) (_ []store.ChunkRecord, err error) {
	defer s.measure("Chunks")(&err)
	return s.next.Chunks(ctx, n)
}

func (s *Store) WriteChunk(ctx context.Context, w store.ChunkWrite, inTx store.TxFunc) (_ bool, err error) {
	defer s.measure("WriteChunk")(&err)
	return s.next.WriteChunk(ctx, w, inTx)
}

func (s *Store) TouchBoard(ctx context.Context, n int) (err error) {
	defer s.measure("TouchBoard")(&err)
	return s.next.TouchBoard(ctx, n)
}

func (s *Store) SeeWorker(ctx context.Context, id string) (err error) {
	defer s.measure("SeeWorker")(&err)
	return s.next.SeeWorker(ctx, id)
}

func (s *Store) Workers(ctx context.Context) (_ []store.Worker, err error) {
	defer s.measure("Workers")(&err)
	return s.next.Workers(ctx)
}

func (s *Store) ForgetWorker(ctx context.Context, id string) (err error) {
	defer s.measure("ForgetWorker")(&err)
	return s.next.ForgetWorker(ctx, id)
}

func (s *Store) FinishBoard(ctx context.Context, n int) (_ store.Board, err error) {
	defer s.measure("FinishBoard")(&err)
	return s.next.FinishBoard(ctx, n)
}

func (s *Store) FailBoard(ctx context.Context, n int, reason string) (_ store.Board, err error) {
	defer s.measure("FailBoard")(&err)
	return s.next.FailBoard(ctx, n, reason)
}

func (s *Store) Page(ctx context.Context, req store.PageRequest) (_ []store.Solution, err error) {
	defer s.measure("Page")(&err)
	return s.next.Page(ctx, req)
}

func (s *Store) CountSolutions(ctx context.Context, req store.CountRequest) (_ uint64, err error) {
	defer s.measure("CountSolutions")(&err)
	return s.next.CountSolutions(ctx, req)
}

func (s *Store) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) (err error) {
	defer s.measure("Walk")(&err)
	return s.next.Walk(ctx, req, visit)
}

func (s *Store) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (_ store.Solution, err error) {
	defer s.measure("SolutionAt")(&err)
	return s.next.SolutionAt(ctx, n, rank, unique)
}

func (s *Store) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (_ uint64, err error) {
	defer s.measure("Rank")(&err)
	return s.next.Rank(ctx, n, p, unique)
}

func (s *Store) SquareCounts(ctx context.Context, n int) (_ solver.SquareCounts, err error) {
	defer s.measure("SquareCounts")(&err)
	return s.next.SquareCounts(ctx, n)
}

func (s *Store) Ping(ctx context.Context) (err error) {
	defer s.measure("Ping")(&err)
	return s.next.Ping(ctx)
}

// Close closes the store it wraps.
func (s *Store) Close() error { return s.next.Close() }

func (s *Store) RequestFilteredCount(ctx context.Context, req store.FilteredCountRequest, onCreate store.FilteredCountTxFunc) (_ store.FilteredCount, _ bool, err error) {
	defer s.measure("RequestFilteredCount")(&err)
	return s.next.RequestFilteredCount(ctx, req, onCreate)
}

func (s *Store) WriteFilteredChunk(ctx context.Context, w store.FilteredChunkWrite, inTx store.TxFunc) (_ store.FilteredCount, err error) {
	defer s.measure("WriteFilteredChunk")(&err)
	return s.next.WriteFilteredChunk(ctx, w, inTx)
}

func (s *Store) FailFilteredCount(ctx context.Context, n int, filter, reason string) (_ store.FilteredCount, err error) {
	defer s.measure("FailFilteredCount")(&err)
	return s.next.FailFilteredCount(ctx, n, filter, reason)
}

func (s *Store) FilteredCount(ctx context.Context, n int, filter string) (_ store.FilteredCount, err error) {
	defer s.measure("FilteredCount")(&err)
	return s.next.FilteredCount(ctx, n, filter)
}
