// Package metrics holds the service's Prometheus metrics, on a registry
// of its own (with the Go runtime's and the process's), and serves them
// at /metrics in Prometheus's text format. The packages that are measured
// know nothing of it: cmd/nqueens hands its methods to their hooks.
package metrics

import (
	"net/http"
	"regexp"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/nqueens/nqueens/internal/buildinfo"
	"github.com/nqueens/nqueens/server"
)

// Metrics are the service's metrics.
type Metrics struct {
	reg        *prometheus.Registry
	operations *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	cache      *prometheus.CounterVec
	names      operationNames
	shedding   *sheddingCollector // pools.go
	store      storeMetrics       // store.go
}

// New makes the metrics on a new registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		operations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nqueens_graphql_operations_total",
			Help: "GraphQL queries and mutations answered, by operation name and outcome (ok, or the first error's extensions.code).",
		}, []string{"operation", "outcome"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "nqueens_graphql_operation_duration_seconds",
			Help:    "Time from receiving a GraphQL query or mutation to its answer, parsing included, by operation name.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nqueens_cache_lookups_total",
			Help: "Lookups in the API's in-memory caches (page: pages of solutions, rank: ranks of pages), by result (hit or miss).",
		}, []string{"cache", "result"}),
		names:    operationNames{seen: map[string]bool{}},
		shedding: &sheddingCollector{},
		store:    newStoreMetrics(),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.operations, m.durations, m.cache, m.shedding, m.store.duration, m.store.errors,
		buildInfo(buildinfo.Read()),
	)
	return m
}

// buildInfo is the nqueens_build_info gauge: always 1, its labels say
// which build runs, so that a query can join them to any other series.
func buildInfo(info buildinfo.Info) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "nqueens_build_info",
		Help:        "Always 1; the labels say which build of nqueens runs (module version, VCS revision, Go version).",
		ConstLabels: prometheus.Labels{"version": info.Version, "revision": info.Revision, "goversion": info.GoVersion},
	})
	g.Set(1)
	return g
}

// Handler serves the metrics in Prometheus's text format. A collector
// that fails leaves its metrics out; the others are still served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Operation records a GraphQL operation (server.Config.OnOperation).
func (m *Metrics) Operation(op server.Operation) {
	name := m.names.label(op.Name)
	m.operations.WithLabelValues(name, op.Outcome).Inc()
	m.durations.WithLabelValues(name).Observe(op.Duration.Seconds())
}

// CacheLookup records a lookup in cache, a hit or a miss.
func (m *Metrics) CacheLookup(cache string, hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	m.cache.WithLabelValues(cache, result).Inc()
}

// Operation names are chosen by clients, so the label values they make
// are bounded: the first maxOperationNames names seen keep their own, the
// later ones share "(other)".
const maxOperationNames = 200

// Label values that no GraphQL name can take.
const (
	anonymousOperation = "(anonymous)"
	otherOperation     = "(other)"
	invalidOperation   = "(invalid)" // an operationName that is no GraphQL name
)

var graphQLName = regexp.MustCompile(`^[_A-Za-z][_0-9A-Za-z]{0,99}$`)

// operationNames bounds the operation label's values.
type operationNames struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (o *operationNames) label(name string) string {
	switch {
	case name == "":
		return anonymousOperation
	case !graphQLName.MatchString(name):
		return invalidOperation
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.seen[name] {
		if len(o.seen) >= maxOperationNames {
			return otherOperation
		}
		o.seen[name] = true
	}
	return name
}
