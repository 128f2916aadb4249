package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// What every attack of the abuse suite checks besides its own bound: that
// an honest client on another address is answered within honestWithin
// while the attack goes on, that the process stays within the memory
// budget meanwhile, and that its live heap, descriptors and CPU go back
// to what they were once the attack ends. These read the whole process,
// so the tests that use them do not run in parallel (Go runs them before
// the parallel tests start, one at a time).

// honestWithin is how long an honest client may wait during an attack
// (longer under the race detector, raceSlowdown).
const honestWithin = time.Second * raceSlowdown

// baseline is the process's state before an attack.
type baseline struct {
	heap  uint64 // live heap after a collection
	files int    // open descriptors
}

func takeBaseline(t *testing.T) baseline {
	t.Helper()
	return baseline{heap: heapAfterGC(), files: openFiles(t)}
}

// restored waits up to 20 s for the process to be back at b once an
// attack has ended: open descriptors at most b's, the live heap at most
// heapSlack above b's, and less than a tenth of a core busy over a
// second. It fails the test saying what stayed up.
func (b baseline) restored(t *testing.T, heapSlack uint64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		files, heap := openFiles(t), heapAfterGC()
		busy := cpuBusy(time.Second)
		why := ""
		switch {
		case files > b.files:
			why = fmt.Sprintf("%d open files, %d before the attack", files, b.files)
		case heap > b.heap+heapSlack:
			why = fmt.Sprintf("a live heap of %.1f MiB, %.1f MiB before the attack (slack %.1f MiB)", mib(heap), mib(b.heap), mib(heapSlack))
		case busy > 0.1:
			why = fmt.Sprintf("%.0f%% of a core busy with nothing to do", 100*busy)
		}
		if why == "" {
			t.Logf("back at the baseline: %d open files (%d before), live heap %.1f MiB (%.1f before), %.1f%% of a core busy",
				files, b.files, mib(heap), mib(b.heap), 100*busy)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after the attack: %s", why)
		}
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// cpuBusy is the share of one core the process used over d.
func cpuBusy(d time.Duration) float64 {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, wall := cpu(), time.Now()
	time.Sleep(d)
	return float64(cpu()-start) / float64(time.Since(wall))
}

// rss is the process's resident memory, from /proc/self/status.
func rss(t *testing.T) uint64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status to read the resident memory: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// watchRSS samples the process's resident memory every 20 ms until the
// returned function is called, which returns the most it saw.
func watchRSS(t *testing.T) (stop func() uint64) {
	t.Helper()
	most := rss(t)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				most = max(most, rss(t))
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return most
	}
}

// withinBudget fails the test when the most resident memory seen passed
// the default memory budget. Under the race detector, whose shadow memory
// is several times the heap and stays, it only logs.
func withinBudget(t *testing.T, most uint64) {
	t.Helper()
	t.Logf("resident memory during the attack: at most %.1f MiB (budget %d MiB)", mib(most), server.DefaultMemoryBudget>>20)
	if raceDetector {
		t.Log("not checked under the race detector (its shadow memory is not the server's)")
		return
	}
	if most > server.DefaultMemoryBudget {
		t.Errorf("resident memory reached %.1f MiB during the attack, past the budget of %d MiB", mib(most), server.DefaultMemoryBudget>>20)
	}
}

// honestPage asks for a page of N=8 from ip and fails the test unless it
// is answered, right, within honestWithin.
func honestPage(t *testing.T, b *apitest.Bundle, ip string) time.Duration {
	t.Helper()
	c := from(t, b, ip)
	defer c.HTTP.CloseIdleConnections() // back at the baseline after
	start := time.Now()
	r := c.Post(t, apitest.Request{Query: fmt.Sprintf("{ solutions(n: 8, first: 3) { nodes { placement } } } # %d", start.UnixNano())})
	took := time.Since(start)
	if r.Status != http.StatusOK || len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"placement":[0,4,7,5,2,6,1,3]`) {
		t.Fatalf("the honest client at %s got status %d: %.300s", ip, r.Status, r.Raw)
	}
	if took > honestWithin {
		t.Errorf("the honest client at %s waited %s for a page, more than %s", ip, took, honestWithin)
	}
	return took
}

// honestExport downloads /export/6.csv from ip and fails the test unless
// it is whole within honestWithin.
func honestExport(t *testing.T, b *apitest.Bundle, ip string) time.Duration {
	t.Helper()
	c := from(t, b, ip)
	defer c.HTTP.CloseIdleConnections() // back at the baseline after
	start := time.Now()
	resp, err := c.HTTP.Get(b.Base + "/export/6.csv")
	if err != nil {
		t.Fatalf("the honest client's export: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK || string(body) != "row0,row1,row2,row3,row4,row5\n1,3,5,0,2,4\n2,5,1,4,0,3\n3,0,4,1,5,2\n4,2,0,5,3,1\n" {
		t.Fatalf("the honest client's export: status %d, %v: %q", resp.StatusCode, err, body)
	}
	if took > honestWithin {
		t.Errorf("the honest client at %s waited %s for an export, more than %s", ip, took, honestWithin)
	}
	return took
}

// honestSubscription subscribes to boardProgress(n: 6) from ip over a
// websocket and fails the test unless its first event comes within
// honestWithin.
func honestSubscription(t *testing.T, b *apitest.Bundle, ip string) time.Duration {
	t.Helper()
	c := from(t, b, ip)
	defer c.HTTP.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	conn, _, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: c.HTTP})
	if err != nil {
		t.Fatalf("the honest client's websocket: %v", err)
	}
	defer conn.CloseNow()
	for _, m := range []string{`{"type":"connection_init"}`, `{"id":"1","type":"subscribe","payload":{"query":"subscription { boardProgress(n: 6) { n } }"}}`} {
		if err := conn.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatalf("the honest client's websocket: %v", err)
		}
	}
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("the honest client's subscription: %v", err)
		}
		if strings.Contains(string(msg), `"type":"next"`) {
			if !strings.Contains(string(msg), `{"boardProgress":{"n":6}}`) {
				t.Fatalf("the honest client's subscription got %s", msg)
			}
			break
		}
		if !strings.Contains(string(msg), `"type":"connection_ack"`) {
			t.Fatalf("the honest client's subscription got %s", msg)
		}
	}
	took := time.Since(start)
	if took > honestWithin {
		t.Errorf("the honest client at %s waited %s for its subscription's first event, more than %s", ip, took, honestWithin)
	}
	return took
}

// TestHonestClientHelpers: the honest client's three requests pass on a
// server under no attack, and the process is at its baseline after them.
func TestHonestClientHelpers(t *testing.T) {
	b := apitest.Setup(t)
	before := takeBaseline(t)
	stop := watchRSS(t)
	t.Logf("page %s, export %s, subscription %s", honestPage(t, b, "127.0.0.9"), honestExport(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9"))
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// honestOnce is one round of the honest client at 127.0.0.9: a page, an
// export and a subscription, each within honestWithin; it logs them and
// returns the slowest.
func honestOnce(t *testing.T, b *apitest.Bundle) time.Duration {
	t.Helper()
	page, export, sub := honestPage(t, b, "127.0.0.9"), honestExport(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9")
	t.Logf("the honest client during the attack: page %s, export %s, subscription %s",
		page.Round(time.Millisecond), export.Round(time.Millisecond), sub.Round(time.Millisecond))
	return max(page, export, sub)
}
