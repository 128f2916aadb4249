package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// TestAbuseExports: one address starts 5 exports of N=14 at once (12 MB
// of CSV each, from the solver) and reads none of them. One runs, held
// by the client that does not read; the other 4 are answered 429 with
// Retry-After (its share is one export); an honest client on another
// address gets its export, a page and a subscription within 1 s while
// the stalled one holds its slot.
func TestAbuseExports(t *testing.T) {
	const attacker, started = "127.0.0.22", 5
	b := apitest.Setup(t)
	share := int64(server.DefaultConfig().ExportMaxPerClient)
	exports := pool(t, b, apierror.PoolExports)
	before := takeBaseline(t)
	stop := watchRSS(t)

	conns := make([]net.Conn, started)
	statuses := make([]int, started)
	errs := make(chan error, started)
	var wg sync.WaitGroup
	for i := range started {
		wg.Go(func() {
			c, err := dialFrom(b, attacker)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
			fmt.Fprintf(c, "GET /export/14.csv HTTP/1.1\r\nHost: x\r\n\r\n")
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				errs <- err
				return
			}
			statuses[i] = resp.StatusCode
			if resp.StatusCode == http.StatusOK {
				return // and read no more of it
			}
			body, err := io.ReadAll(resp.Body)
			if err == nil {
				err = checkRefusal(resp, body, http.StatusTooManyRequests, "EXPORTS_PER_CLIENT")
			}
			if err != nil {
				errs <- fmt.Errorf("export %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	running := 0
	for _, s := range statuses {
		if s == http.StatusOK {
			running++
		}
	}
	if running != int(share) || exports.HeldBy(attacker) != share {
		t.Fatalf("exports answered %v, %d held for the attacker; want %d running and the others 429", statuses, exports.HeldBy(attacker), share)
	}
	t.Logf("%d exports of N=14 from one address at once: statuses %v", started, statuses)
	t.Logf("the honest client meanwhile: export %s, page %s, subscription %s",
		honestExport(t, b, "127.0.0.9"), honestPage(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9"))
	if exports.HeldBy(attacker) != share {
		t.Fatal("the stalled export ended during the honest client's requests: the test did not test")
	}
	shareRefused, totalRefused := exports.Refused()
	if shareRefused != started-share || totalRefused != 0 {
		t.Errorf("the exports pool refused %d for the share and %d for the total, want %d and 0", shareRefused, totalRefused, started-share)
	}
	closeAll(conns)
	allClosed(t, b)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}
