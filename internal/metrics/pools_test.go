package metrics_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/metrics"
	"github.com/nqueens/nqueens/server"
)

// scrapeURL reads /metrics of a real server as series → value.
func scrapeURL(t *testing.T, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return apitest.ParseMetrics(t, body)
}

// TestSheddingMetrics reads the memory pool of a real server through its
// /metrics while requests hold it: the bytes held by a request whose body
// stalls, a request of the same client waiting behind it, its share and
// total, and a request larger than a client's share refused (scope
// client); a refuser that is not a pool is one line; the budget and the
// runtime's soft limit are there.
func TestSheddingMetrics(t *testing.T) {
	t.Parallel()
	const share, total = 128 << 10, 1 << 20
	b := apitest.Setup(t, func(c *server.Config) {
		c.InflightBytesPerClient, c.InflightBytes, c.AdmissionWait = share, total, 10*time.Second
	})
	m := metrics.New()
	m.WatchPools(b.Server.Pools)
	var limited atomic.Int64
	m.WatchRefusals("requests", func() (int64, int64) { return limited.Load(), 0 })
	m.MemoryBudget(512 << 20)
	b.Server.Handle("GET /metrics", m.Handler())

	got := scrapeURL(t, b.Base)
	for series, want := range map[string]float64{
		`nqueens_pool_held{pool="memory"}`:                       0,
		`nqueens_pool_waiting{pool="memory"}`:                    0,
		`nqueens_pool_clients{pool="memory"}`:                    0,
		`nqueens_pool_share{pool="memory"}`:                      share,
		`nqueens_pool_total{pool="memory"}`:                      total,
		`nqueens_refusals_total{pool="memory",scope="client"}`:   0,
		`nqueens_refusals_total{pool="memory",scope="total"}`:    0,
		`nqueens_refusals_total{pool="requests",scope="client"}`: 0,
		`nqueens_memory_budget_bytes`:                            512 << 20,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("before: %s = %v (present %t), want %v", series, v, ok, want)
		}
	}
	if got["nqueens_memory_soft_limit_bytes"] <= 0 {
		t.Errorf("no soft limit reported: %v", got["nqueens_memory_soft_limit_bytes"])
	}

	// A request whose body stalls holds what it announced, and the
	// request's overhead, until it goes.
	const announced = 100_000
	stalled, err := net.Dial("tcp", strings.TrimPrefix(b.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"query\": ", announced)
	var held float64
	eventually.True(t, 10*time.Second, func() string {
		got = scrapeURL(t, b.Base)
		held = got[`nqueens_pool_held{pool="memory"}`]
		if held < announced || got[`nqueens_pool_clients{pool="memory"}`] != 1 {
			return fmt.Sprintf("held %v, clients %v", held, got[`nqueens_pool_clients{pool="memory"}`])
		}
		return ""
	})
	t.Logf("a stalled body of %d bytes holds %v bytes", announced, held)

	// The same client's next request does not fit its share: it waits,
	// and is answered once the stalled one is gone.
	answered := make(chan *apitest.Response, 1)
	go func() { answered <- b.Post(t, apitest.Request{Query: "{ count(n: 6) { total } }"}) }()
	eventually.True(t, 10*time.Second, func() string {
		if w := scrapeURL(t, b.Base)[`nqueens_pool_waiting{pool="memory"}`]; w != 1 {
			return fmt.Sprintf("waiting %v", w)
		}
		return ""
	})
	stalled.Close()
	if r := <-answered; r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("the waiting request: %d %s", r.Status, r.Raw)
	}

	// A request larger than a client's share is refused at once.
	big := b.Post(t, apitest.Request{Query: "{ count(n: 6) { total } } #" + strings.Repeat("x", 200_000)})
	if big.Status != http.StatusBadRequest || big.Reason() != "MEMORY_PER_REQUEST" {
		t.Fatalf("a request of 200 kB with a share of 128 KiB: %d %s", big.Status, big.Raw)
	}
	limited.Add(3)
	got = scrapeURL(t, b.Base)
	for series, want := range map[string]float64{
		`nqueens_pool_held{pool="memory"}`:                       0,
		`nqueens_pool_waiting{pool="memory"}`:                    0,
		`nqueens_refusals_total{pool="memory",scope="client"}`:   1,
		`nqueens_refusals_total{pool="memory",scope="total"}`:    0,
		`nqueens_refusals_total{pool="requests",scope="client"}`: 3,
	} {
		if v := got[series]; v != want {
			t.Errorf("after: %s = %v, want %v", series, v, want)
		}
	}
}
