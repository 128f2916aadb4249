package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens"
)

// storeMetrics time the store's calls, by method, and count those that
// fail, by method and error code.
type storeMetrics struct {
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

func newStoreMetrics() storeMetrics {
	return storeMetrics{
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
}

// ObserveStore records one call of the store (a store.Observer): how long
// it took, and its error unless ENOTFOUND, an answer rather than a
// failure (a board nobody asked for yet).
func (m *Metrics) ObserveStore(method string, took time.Duration, err error) {
	m.store.duration.WithLabelValues(method).Observe(took.Seconds())
	if err != nil && nqueens.ErrorCode(err) != nqueens.ENOTFOUND {
		m.store.errors.WithLabelValues(method, nqueens.ErrorCode(err)).Inc()
	}
}
