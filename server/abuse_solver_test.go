package server_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
)

// TestAbuseSolverQueue: one address sends 24 heavy requests at once (40
// expensive solutionAt each, and one field that needs no solver). At most
// its share (8) of its searches wait for the solver or run on it; a field
// that would search past it is refused at once, RATE_LIMITED with reason
// SOLVER_PER_CLIENT, and the request's other fields still answer. An
// honest client on another address is served within 1 s meanwhile.
func TestAbuseSolverQueue(t *testing.T) {
	const attacker, requests = "127.0.0.23", 24
	b := apitest.Setup(t)
	share := int64(b.Server.Resolver().Options().SolverQueuePerClient)
	queue := pool(t, b, apierror.PoolSolver)
	before := takeBaseline(t)
	stop := watchRSS(t)

	var most atomic.Int64
	watching := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Go(func() {
		for {
			select {
			case <-watching:
				return
			case <-time.After(time.Millisecond):
				most.Store(max(most.Load(), queue.HeldBy(attacker)))
			}
		}
	})
	heavy := strings.Replace(heavyAliases(40, true), "{", "{ cheap: solution(placement: [1, 3, 0, 2]) { chess }", 1)
	evil := from(t, b, attacker)
	answers := make(chan *apitest.Response, requests)
	var wg sync.WaitGroup
	start := time.Now()
	for range requests {
		wg.Go(func() { answers <- evil.Post(t, apitest.Request{Query: heavy}) })
	}
	eventually.True(t, 10*time.Second, func() string {
		if share, _ := queue.Refused(); share == 0 || queue.HeldBy(attacker) == 0 {
			return "the attacker's searches are not queued and refused yet"
		}
		return ""
	})
	t.Logf("the honest client meanwhile: page %s, export %s, subscription %s",
		honestPage(t, b, "127.0.0.9"), honestExport(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9"))
	if queue.HeldBy(attacker) == 0 {
		t.Error("the attacker's searches were over before the honest client's requests: the test did not test")
	}
	wg.Wait()
	took := time.Since(start)
	close(answers)
	close(watching)
	watcher.Wait()

	codes := map[string]int{}
	for r := range answers {
		if r.Status != http.StatusOK || !strings.Contains(string(r.Data), `"cheap":{"chess":`) {
			t.Fatalf("a heavy request: %d, its field without the solver not answered: %.300s", r.Status, r.Raw)
		}
		for _, e := range r.Errors {
			code, _ := e.Extensions["code"].(string)
			if reason, _ := e.Extensions["reason"].(string); reason != "" {
				code += " " + reason
			}
			codes[code]++
			if code == "RATE_LIMITED SOLVER_PER_CLIENT" && e.Extensions["retryAfter"] == nil {
				t.Errorf("a refused field has no retryAfter: %v", e.Extensions)
			}
		}
	}
	shareRefused, totalRefused := queue.Refused()
	t.Logf("%d requests of 40 heavy fields answered in %s: errors by code %v; at most %d searches of the attacker queued; refused %d (share), %d (total)",
		requests, took.Round(time.Millisecond), codes, most.Load(), shareRefused, totalRefused)
	if most.Load() > share {
		t.Errorf("the attacker had %d searches queued or running, past its share of %d", most.Load(), share)
	}
	if codes["RATE_LIMITED SOLVER_PER_CLIENT"] == 0 {
		t.Error("no field was refused RATE_LIMITED SOLVER_PER_CLIENT")
	}
	for code := range codes {
		if code != "RATE_LIMITED SOLVER_PER_CLIENT" && code != "TIMEOUT" {
			t.Errorf("%d fields answered %s", codes[code], code)
		}
	}
	evil.HTTP.CloseIdleConnections()
	withinBudget(t, stop())
	before.restored(t, 16<<20)
}
