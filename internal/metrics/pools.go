package metrics

import (
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens/internal/quota"
)

// What the server sheds, read at scrape time: each pool it shares between
// clients (quota.Pool: connections, websockets, exports, memory, solver)
// with what is held, what waits and the bounds, and the refusals of every
// refuser by scope, pools and others alike (the rate limit, frames too
// large): one line each, WatchRefusals.

var (
	poolHeldDesc = prometheus.NewDesc("nqueens_pool_held",
		"Units of a shared pool held now, all clients together (memory in bytes, the others in connections, sockets, exports, searches).", []string{"pool"}, nil)
	poolWaitingDesc = prometheus.NewDesc("nqueens_pool_waiting",
		"Requests waiting for units of a shared pool now.", []string{"pool"}, nil)
	poolClientsDesc = prometheus.NewDesc("nqueens_pool_clients",
		"Clients holding units of a shared pool now.", []string{"pool"}, nil)
	poolShareDesc = prometheus.NewDesc("nqueens_pool_share",
		"Units of a shared pool one client may hold at once.", []string{"pool"}, nil)
	poolTotalDesc = prometheus.NewDesc("nqueens_pool_total",
		"Units of a shared pool all clients together may hold at once.", []string{"pool"}, nil)
	refusalsDesc = prometheus.NewDesc("nqueens_refusals_total",
		"Requests refused, by what refused them (a shared pool, or another bound such as the rate limit) and scope: client (the client held its share: 429) or total (the server held its total: 503).",
		[]string{"pool", "scope"}, nil)
	memoryBudgetDesc = prometheus.NewDesc("nqueens_memory_budget_bytes",
		"The memory budget the process serves within (--memory-limit, GOMEMLIMIT, the container's limit or the default).", nil, nil)
	memorySoftLimitDesc = prometheus.NewDesc("nqueens_memory_soft_limit_bytes",
		"The Go runtime's soft memory limit now (debug.SetMemoryLimit), a share of the budget.", nil, nil)
)

// sheddingCollector reads the pools and the refusal counts at scrape
// time: they are the server's own counters, kept whether or not metrics
// are served.
type sheddingCollector struct {
	mu       sync.Mutex
	pools    []func() []*quota.Pool
	refusals []refuser
	budget   int64 // 0: not reported
}

// refuser is a count of refusals by scope, read at scrape time.
type refuser struct {
	name  string
	count func() (client, total int64)
}

func (c *sheddingCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolHeldDesc, poolWaitingDesc, poolClientsDesc, poolShareDesc, poolTotalDesc,
		refusalsDesc, memoryBudgetDesc, memorySoftLimitDesc} {
		ch <- d
	}
}

func (c *sheddingCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	sources, refusals, budget := c.pools, c.refusals, c.budget
	c.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	count := func(name string, read func() (int64, int64)) {
		client, total := read()
		ch <- prometheus.MustNewConstMetric(refusalsDesc, prometheus.CounterValue, float64(client), name, quota.Share.String())
		ch <- prometheus.MustNewConstMetric(refusalsDesc, prometheus.CounterValue, float64(total), name, quota.Total.String())
	}
	for _, pools := range sources {
		for _, p := range pools() {
			name := p.Name()
			gauge(poolHeldDesc, float64(p.Held()), name)
			gauge(poolWaitingDesc, float64(p.Waiting()), name)
			gauge(poolClientsDesc, float64(p.Clients()), name)
			gauge(poolShareDesc, float64(p.Share()), name)
			gauge(poolTotalDesc, float64(p.Total()), name)
			count(name, p.Refused)
		}
	}
	for _, r := range refusals {
		count(r.name, r.count)
	}

	if budget > 0 {
		gauge(memoryBudgetDesc, float64(budget))
		gauge(memorySoftLimitDesc, float64(debug.SetMemoryLimit(-1)))
	}
}

// WatchPools reports the pools pools returns at each scrape (the
// server's Pools): units held, waiting requests, clients, share and total
// of each, and its refusals by scope.
func (m *Metrics) WatchPools(pools func() []*quota.Pool) {
	m.shedding.mu.Lock()
	defer m.shedding.mu.Unlock()
	m.shedding.pools = append(m.shedding.pools, pools)
}

// WatchRefusals reports the refusals count reads, client and total, as
// nqueens_refusals_total{pool=name}: for a bound that is not a pool (the
// rate limit, a frame too large). count is read at each scrape and must be
// safe for concurrent use.
func (m *Metrics) WatchRefusals(name string, count func() (client, total int64)) {
	m.shedding.mu.Lock()
	defer m.shedding.mu.Unlock()
	m.shedding.refusals = append(m.shedding.refusals, refuser{name, count})
}

// WatchCounts reports the values read returns at each scrape as metric
// name, one series per key under label: counters (prometheus.CounterValue)
// for what only grows, gauges for what is now. For the server's own
// counts that are not pools: the connections it closed and why, the
// websockets' refusals, the subscriptions it follows. read must be safe
// for concurrent use.
func (m *Metrics) WatchCounts(name, help, label string, kind prometheus.ValueType, read func() map[string]int64) {
	m.reg.MustRegister(counts{desc: prometheus.NewDesc(name, help, []string{label}, nil), kind: kind, read: read})
}

// counts is a WatchCounts metric.
type counts struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
	read func() map[string]int64
}

func (c counts) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c counts) Collect(ch chan<- prometheus.Metric) {
	for k, v := range c.read() {
		ch <- prometheus.MustNewConstMetric(c.desc, c.kind, float64(v), k)
	}
}

// MemoryBudget reports the process's memory budget, and from then on the
// runtime's soft limit as it is at each scrape.
func (m *Metrics) MemoryBudget(bytes int64) {
	m.shedding.mu.Lock()
	defer m.shedding.mu.Unlock()
	m.shedding.budget = bytes
}
