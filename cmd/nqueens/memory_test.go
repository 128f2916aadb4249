package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/boardsvg"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/solver"
)

// residentOf is the resident memory of process pid, from /proc.
func residentOf(t *testing.T, pid int) uint64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0 // gone: the caller notices the exit
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Errorf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	return 0
}

// clientAt is an HTTP client whose connections come from the loopback
// address ip: another client of the server's shares.
func clientAt(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: time.Minute}
}

// memoryFloodRequests are honest-but-heavy requests sized for a small
// budget's share (4 MiB per client at 128 MiB): a page of pictures of
// N=10, the schema's introspection, a completion of 10,000 rows, a
// filtered count; each with its check against the solver.
var memoryFloodRequests = []struct {
	name, query string
	check       func(t *testing.T, data json.RawMessage)
}{
	{"a page of pictures", "{ solutions(n: 10, first: 150) { nodes { placement rows svg } } }", func(t *testing.T, data json.RawMessage) {
		var got struct {
			Solutions struct {
				Nodes []struct {
					Placement solver.Placement
					Rows      []string
					Svg       string
				}
			}
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		want, err := solver.Page(t.Context(), solver.PageQuery{N: 10, Limit: 150})
		if err != nil || len(want) != len(got.Solutions.Nodes) {
			t.Fatalf("%d solutions, the solver has %d (%v)", len(got.Solutions.Nodes), len(want), err)
		}
		for i, p := range want {
			n := got.Solutions.Nodes[i]
			if n.Placement.Compare(p) != 0 || strings.Join(n.Rows, "/") != strings.Join(p.Rows(), "/") || n.Svg != boardsvg.Render(p, 400) {
				t.Fatalf("solution %d is %v, the solver's %v", i, n.Placement, p)
			}
		}
	}},
	{"introspection", "{ __schema { types { name description fields { name description args { name type { name kind } } } } } }", func(t *testing.T, data json.RawMessage) {
		var got struct {
			Schema struct{ Types []struct{ Name string } } `json:"__schema"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, typ := range got.Schema.Types {
			names[typ.Name] = true
		}
		for _, want := range []string{"Query", "Solution", "Board", "Completion", "__Schema"} {
			if !names[want] {
				t.Fatalf("introspection lacks %s among %d types", want, len(got.Schema.Types))
			}
		}
	}},
	{"a completion of 10,000 rows", "{ complete(n: 10000, queens: [{row: 3, col: 4}]) { state placement } }", func(t *testing.T, data json.RawMessage) {
		var got struct {
			Complete struct {
				State     string
				Placement solver.Placement
			}
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		c := got.Complete
		if c.State != "COMPLETED" || solver.ValidateN(10000, c.Placement) != nil || c.Placement[3] != 4 {
			t.Fatalf("%s with a placement of %d rows (%v)", c.State, len(c.Placement), solver.ValidateN(10000, c.Placement))
		}
	}},
	{"a filtered count", "{ count(n: 9, where: {queens: [{row: 0, col: 2}]}) { total unique squareCounts } }", func(t *testing.T, data json.RawMessage) {
		var got struct {
			Count struct{ Total, Unique string }
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		c, err := solver.CountFiltered(t.Context(), 9, solver.Filter{Queens: []solver.Square{{Row: 0, Col: 2}}}, solver.CountOptions{})
		if err != nil || got.Count.Total != fmt.Sprint(c.Total) || got.Count.Unique != fmt.Sprint(c.Unique) {
			t.Fatalf("count %+v, the solver's %+v (%v)", got.Count, c, err)
		}
	}},
}

// TestServeWithinMemoryLimit runs the real binary (SQLite, N=1..8
// computed on start; idle, it is resident in about 43 MiB) with
// GOMEMLIMIT=96MiB, as a container's limit would be passed on, and floods it for 10
// s from 40 addresses, three requests at a time each, with honest-but-heavy
// requests: it never dies, its resident memory (sampled every 20 ms)
// stays within the limit, it sheds with 429 and 503 and /metrics counts
// the refusals, and every answer it gives is right.
func TestServeWithinMemoryLimit(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc to read a process's resident memory")
	}
	const limit = 96 << 20
	// Requests wait for room 50 ms at most (2 s by default): the server
	// sheds as soon as it is full rather than queue, so that refusals come
	// however fast the machine answers. The answer cache is off: the
	// flood repeats its requests, and what is measured is the budget
	// under answers built, not answers kept.
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"), "NQUEENS_PRECOMPUTE=1-8",
		"GOMEMLIMIT=96MiB", "NQUEENS_ADMISSION_WAIT=50ms", "NQUEENS_ANSWER_CACHE_BYTES=0"}
	s := spawn(t, env, serveArgs(nil)...)
	s.waitServing(t)
	s.waitFor(t, time.Minute, `msg="memory budget" budget=96MiB source=GOMEMLIMIT soft_limit=56MiB gogc=400 gogc_source=default inflight_bytes=24MiB inflight_bytes_per_client=3MiB admission_wait=50ms`)
	pid := s.cmd.Process.Pid
	eventually.True(t, time.Minute, func() string {
		if v := s.scrape(t)[`nqueens_boards{state="done"}`]; v < 8 {
			return fmt.Sprintf("%v boards done", v)
		}
		return ""
	})

	// The reference answers, alone, checked against the solver.
	ref := clientAt("127.0.0.19")
	want := map[string][32]byte{}
	for _, req := range memoryFloodRequests {
		status, body := postTo(t, ref, s.url, req.query)
		var answer struct {
			Data   json.RawMessage
			Errors []any
		}
		if err := json.Unmarshal(body, &answer); status != http.StatusOK || err != nil || len(answer.Errors) > 0 {
			t.Fatalf("%s alone: %d %.300s", req.name, status, body)
		}
		req.check(t, answer.Data)
		want[req.name] = sha256.Sum256(body)
	}
	idle := residentOf(t, pid)

	var (
		mu                      sync.Mutex
		most                    uint64
		answered, refused, sent int
		statuses                = map[int]int{}
		wrong                   []string
	)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			r := residentOf(t, pid)
			mu.Lock()
			most = max(most, r)
			mu.Unlock()
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	var flood sync.WaitGroup
	for i := range 40 {
		c := clientAt(fmt.Sprintf("127.0.0.%d", 20+i))
		for j := range 3 {
			flood.Go(func() {
				defer c.CloseIdleConnections()
				for k := i + j; time.Now().Before(deadline); k++ {
					req := memoryFloodRequests[k%len(memoryFloodRequests)]
					status, sum, head, retry := postHashed(c, s.url, req.query)
					mu.Lock()
					sent++
					statuses[status]++
					switch {
					case status == http.StatusOK && sum == want[req.name]:
						answered++
					case (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) && retry:
						refused++
					default:
						if len(wrong) < 10 {
							wrong = append(wrong, fmt.Sprintf("%s: %d %.300s", req.name, status, head))
						}
					}
					mu.Unlock()
				}
			})
		}
	}
	flood.Wait()
	close(done)
	wg.Wait()
	if s.exited() {
		t.Fatalf("serve exited %d during the flood; stderr:\n%s", s.code, s.stderr.String())
	}
	metrics := s.scrape(t)
	counted := 0.0
	for series, v := range metrics {
		if strings.HasPrefix(series, "nqueens_refusals_total{") {
			counted += v
		}
	}
	t.Logf("resident memory: %.1f MiB idle, at most %.1f MiB during the flood (limit %d MiB); %d requests: %d answered right, %d refused (by status %v); /metrics counts %v refusals; soft limit %v",
		float64(idle)/(1<<20), float64(most)/(1<<20), limit>>20, sent, answered, refused, statuses, counted, metrics["nqueens_memory_soft_limit_bytes"])
	for _, w := range wrong {
		t.Error(w)
	}
	if most > limit {
		t.Errorf("resident memory reached %.1f MiB, past the limit of %d MiB", float64(most)/(1<<20), limit>>20)
	}
	if refused == 0 || counted < float64(refused) {
		t.Errorf("%d refusals seen, %v counted in /metrics: want some, all counted", refused, counted)
	}
	if answered == 0 {
		t.Error("nothing was answered")
	}
	if metrics["nqueens_memory_budget_bytes"] != limit {
		t.Errorf("nqueens_memory_budget_bytes is %v, want %d", metrics["nqueens_memory_budget_bytes"], limit)
	}
	s.stop(t)
}

// postTo posts query and returns the status and the whole answer.
func postTo(t *testing.T, c *http.Client, url, query string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// postHashed posts query and returns the status, the answer's hash, its
// first bytes and whether it came with Retry-After.
func postHashed(c *http.Client, url, query string) (status int, sum [32]byte, head []byte, retry bool) {
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, sum, []byte(err.Error()), false
	}
	defer resp.Body.Close()
	h := sha256.New()
	var first bytes.Buffer
	_, _ = io.Copy(h, io.TeeReader(resp.Body, &prefixWriter{&first, 512}))
	return resp.StatusCode, [32]byte(h.Sum(nil)), first.Bytes(), resp.Header.Get("Retry-After") != ""
}

// prefixWriter keeps the first n bytes written to it.
type prefixWriter struct {
	b *bytes.Buffer
	n int
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	if room := w.n - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// TestServeMemoryBudgetFromEnvironment: without --memory-limit, serve
// takes its budget from GOMEMLIMIT and GOGC from the environment it is
// given (not the test process's), logs them with the in-flight budgets,
// which follow the budget unless given, and reports the budget in
// /metrics.
func TestServeMemoryBudgetFromEnvironment(t *testing.T) {
	t.Parallel()
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db"), "GOMEMLIMIT=2GiB", "GOGC=150"}
	s := launchServe(t, env)
	s.waitFor(t, time.Minute, `msg="memory budget" budget=2GiB source=GOMEMLIMIT soft_limit=1.8GiB gogc=150 gogc_source=GOGC inflight_bytes=512MiB inflight_bytes_per_client=64MiB`)
	if v := s.scrape(t)["nqueens_memory_budget_bytes"]; v != 2<<30 {
		t.Errorf("nqueens_memory_budget_bytes %v, want 2 GiB", v)
	}
	s.stop(t)

	given := launchServe(t, env, "--inflight-bytes", "100MiB")
	given.waitFor(t, time.Minute, `inflight_bytes=100MiB inflight_bytes_per_client=12800KiB`)
	given.stop(t)
}
