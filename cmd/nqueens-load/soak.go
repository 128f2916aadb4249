package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
)

// soakConfig is what one soak run does.
type soakConfig struct {
	url         string
	n           int
	rate        int
	duration    time.Duration
	sampleEvery time.Duration
	serverPID   int
	precompute  []int
	watch       int
	adminToken  string
	seed        uint64
	timeout     time.Duration
}

// A query kind of the soak's mix: its weight among the requests, and what
// its answer must contain besides HTTP 200 and no GraphQL errors.
type queryKind struct {
	name   string
	weight int
	want   string
}

// soakKinds is the mix: mostly pages, as the viewer asks, and some of
// every other root field a client reads.
var soakKinds = []queryKind{
	{"page", 30, `"edges":[{`},
	{"uniquePage", 15, `"edges":[{`},
	{"solutionAt", 15, `"placement":[`},
	{"count", 10, `"total":"`},
	{"board", 10, `"state":"`},
	{"validate", 10, `"valid":`},
	{"node", 10, `"placement":[`},
}

func runSoak(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load soak", flag.ContinueOnError)
	var c soakConfig
	var precompute string
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080/graphql", "the server's GraphQL endpoint")
	fs.IntVar(&c.n, "n", 15, "board the queries read; its counts must be known (stored, or small enough to count on the spot)")
	fs.IntVar(&c.rate, "rate", 200, "requests per second, sent at a fixed rate whatever the answers take")
	fs.DurationVar(&c.duration, "duration", 10*time.Minute, "how long to send")
	fs.DurationVar(&c.sampleEvery, "sample-every", time.Minute, "how often to report the server's memory, the load and the watched board")
	fs.IntVar(&c.serverPID, "server-pid", 0, "process id of the server, whose resident memory (VmRSS) is reported; 0: none")
	fs.StringVar(&precompute, "precompute", "", "boards to ask for at the start, comma-separated (the precompute mutation, with the admin token)")
	fs.IntVar(&c.watch, "watch", 0, "board whose progress is reported with each sample (default the last of --precompute)")
	fs.StringVar(&c.adminToken, "admin-token", os.Getenv("NQUEENS_ADMIN_TOKEN"), "bearer token for the precompute mutation ($NQUEENS_ADMIN_TOKEN)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the mix")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "time limit of one request")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return usageError(err.Error())
	}
	for f := range strings.SplitSeq(precompute, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 27 {
			return usageError(fmt.Sprintf("--precompute: %q is not a board size from 1 to 27", f))
		}
		c.precompute = append(c.precompute, n)
	}
	if c.watch == 0 && len(c.precompute) > 0 {
		c.watch = c.precompute[len(c.precompute)-1]
	}
	switch {
	case fs.NArg() > 0:
		return usageError("unexpected arguments: " + strings.Join(fs.Args(), " "))
	case c.n < 4 || c.n > solver.MaxSearchN:
		return usageError(fmt.Sprintf("--n must be from 4 to %d", solver.MaxSearchN))
	case c.rate < 1 || c.duration <= 0 || c.sampleEvery <= 0:
		return usageError("--rate, --duration and --sample-every must be positive")
	}
	return soak(ctx, c, stdout)
}

// soakTarget is a request of the mix. Its kind travels as the URL's
// fragment, which the HTTP client does not send but vegeta's result
// keeps, so that each answer is checked against its kind.
func soakTarget(endpoint, kind, query string, vars map[string]any) (vegeta.Target, error) {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return vegeta.Target{}, err
	}
	header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/graphql-response+json"}}
	markResendable(header)
	return vegeta.Target{Method: http.MethodPost, URL: endpoint + "#" + kind, Body: body, Header: header}, nil
}

// buildMix makes the soak's requests about board n, drawn with the kinds'
// weights: pages after cursors spread over the whole listing (all
// solutions and classes), ranks drawn from 1 to the board's counts, counts
// and boards of N up to n, and placements to validate and fetch by id.
func buildMix(ctx context.Context, endpoint string, n int, total, unique uint64, size int, seed uint64) ([]vegeta.Target, error) {
	cursors, err := spreadCursors(ctx, n, 200)
	if err != nil {
		return nil, err
	}
	placements, err := spreadSolutions(ctx, n, 200, false)
	if err != nil {
		return nil, err
	}
	canonical, err := spreadSolutions(ctx, n, 200, true)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x736f616b))
	weights := 0
	for _, k := range soakKinds {
		weights += k.weight
	}
	out := make([]vegeta.Target, 0, size)
	for range size {
		w := rng.IntN(weights)
		var kind queryKind
		for _, kind = range soakKinds {
			if w < kind.weight {
				break
			}
			w -= kind.weight
		}
		var query string
		var vars map[string]any
		switch kind.name {
		case "page":
			query = `query($n: Int!, $after: String) { solutions(n: $n, first: 20, after: $after) { totalCount edges { cursor node { placement } } pageInfo { hasNextPage endCursor } } }`
			vars = map[string]any{"n": n, "after": cursors[rng.IntN(len(cursors))]}
		case "uniquePage":
			query = `query($n: Int!, $after: String) { uniqueSolutions(n: $n, first: 20, after: $after) { totalCount edges { cursor node { placement } } pageInfo { hasNextPage endCursor } } }`
			p := canonical[rng.IntN(len(canonical))]
			vars = map[string]any{"n": n, "after": graph.EncodeCursor(true, p)}
		case "solutionAt":
			query = `query($n: Int!, $rank: BigInt!, $unique: Boolean) { solutionAt(n: $n, rank: $rank, unique: $unique) { placement chess rank } }`
			of, isUnique := total, rng.IntN(3) == 0
			if isUnique {
				of = unique
			}
			rank := 1 + rng.Uint64N(of)
			vars = map[string]any{"n": n, "rank": strconv.FormatUint(rank, 10), "unique": isUnique}
		case "count":
			query = `query($n: Int!) { count(n: $n) { total unique } }`
			vars = map[string]any{"n": 1 + rng.IntN(n)}
		case "board":
			query = `query($n: Int!) { board(n: $n) { id state total unique progress { chunksDone chunksTotal } } }`
			vars = map[string]any{"n": 1 + rng.IntN(n)}
		case "validate":
			query = `query($p: [Int!]!) { validate(placement: $p) { valid conflict { rowA rowB } message } }`
			p := placements[rng.IntN(len(placements))].Clone()
			if rng.IntN(2) == 0 { // swap two rows: usually no longer a solution
				i, j := rng.IntN(n), rng.IntN(n)
				p[i], p[j] = p[j], p[i]
			}
			vars = map[string]any{"p": p}
		case "node":
			query = `query($id: ID!) { node(id: $id) { id ... on Solution { placement rank } } }`
			vars = map[string]any{"id": graph.SolutionID(placements[rng.IntN(len(placements))])}
		}
		t, err := soakTarget(endpoint, kind.name, query, vars)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// spreadSolutions returns up to k solutions of N (canonical ones when
// unique) spread over its listing: the first after each of k prefix chunks
// chosen evenly; never the last one, whose page after it is empty.
func spreadSolutions(ctx context.Context, n, k int, unique bool) ([]solver.Placement, error) {
	chunks, err := solver.Chunks(n, solver.DefaultChunkDepth(n))
	if err != nil {
		return nil, err
	}
	var out []solver.Placement
	for i := range k {
		page, err := solver.Page(ctx, solver.PageQuery{N: n, Cursor: chunks[i*len(chunks)/k].Prefix, Limit: 1, Unique: unique})
		if err != nil {
			return nil, err
		}
		if len(page) == 0 || len(out) > 0 && slices.Equal(out[len(out)-1], page[0]) {
			continue
		}
		if next, err := solver.Page(ctx, solver.PageQuery{N: n, Cursor: page[0], Limit: 1, Unique: unique}); err != nil || len(next) == 0 {
			continue
		}
		out = append(out, page[0])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("board N=%d has no solutions", n)
	}
	return out, nil
}

// soakTally counts the answers as they come, by kind, for the report and
// the samples taken meanwhile.
type soakTally struct {
	mu          sync.Mutex
	requests    int
	errors      int
	latencies   []time.Duration
	byKind      map[string][]time.Duration
	errorsBy    map[string]int
	firstErrors []string
}

func newSoakTally() *soakTally {
	return &soakTally{byKind: map[string][]time.Duration{}, errorsBy: map[string]int{}}
}

// add checks one answer against its kind and counts it.
func (t *soakTally) add(res *vegeta.Result) {
	kind := ""
	if u, err := url.Parse(res.URL); err == nil {
		kind = u.Fragment
	}
	msg := checkKind(res, kind)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests++
	t.latencies = append(t.latencies, res.Latency)
	t.byKind[kind] = append(t.byKind[kind], res.Latency)
	if msg != "" {
		t.errors++
		t.errorsBy[kind]++
		if len(t.firstErrors) < 5 {
			t.firstErrors = append(t.firstErrors, kind+": "+msg)
		}
	}
}

func (t *soakTally) counts() (requests, errors int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.requests, t.errors
}

// checkKind says what is wrong with an answer of the given kind, "" when
// nothing.
func checkKind(res *vegeta.Result, kind string) string {
	want := ""
	for _, k := range soakKinds {
		if k.name == kind {
			want = k.want
		}
	}
	switch {
	case want == "":
		return "unknown query kind " + strconv.Quote(kind)
	case res.Error != "":
		return res.Error
	case res.Code != http.StatusOK:
		return "HTTP " + strconv.Itoa(int(res.Code))
	case bytes.Contains(res.Body, []byte(`"errors"`)):
		return "GraphQL errors: " + string(res.Body[:min(len(res.Body), 300)])
	case !bytes.Contains(res.Body, []byte(want)):
		return "no " + want + " in " + string(res.Body[:min(len(res.Body), 300)])
	}
	return ""
}

// print writes the soak's summary: volume, errors and latency, overall and
// by kind.
func (t *soakTally) print(w io.Writer, elapsed time.Duration, rate int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(w, "requests %d in %s: %.1f/s (asked %d/s)\n", t.requests, elapsed.Round(time.Second), float64(t.requests)/elapsed.Seconds(), rate)
	fmt.Fprintf(w, "errors   %d\n", t.errors)
	fmt.Fprintf(w, "latency  %s\n", percentiles(t.latencies))
	for _, k := range soakKinds {
		fmt.Fprintf(w, "  %-11s %6d requests, %d errors, %s\n", k.name, len(t.byKind[k.name]), t.errorsBy[k.name], percentiles(t.byKind[k.name]))
	}
	for _, e := range t.firstErrors {
		fmt.Fprintf(w, "error    %s\n", e)
	}
}

func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no requests"
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	q := func(f float64) string {
		return strconv.FormatFloat(float64(ds[int(f*float64(len(ds)-1))])/float64(time.Millisecond), 'f', 2, 64) + " ms"
	}
	return "p50 " + q(0.5) + ", p99 " + q(0.99) + ", max " + q(1)
}

// soak asks for the boards, then sends the mix at a fixed rate for the
// duration, sampling the server's memory and the watched board meanwhile.
func soak(ctx context.Context, c soakConfig, stdout io.Writer) error {
	api := &soakClient{url: c.url, token: c.adminToken, http: &http.Client{Timeout: c.timeout}}
	total, unique, err := api.counts(ctx, c.n)
	if err != nil {
		return err
	}
	targets, err := buildMix(ctx, c.url, c.n, total, unique, 5000, c.seed)
	if err != nil {
		return err
	}
	for _, n := range c.precompute {
		state, err := api.precompute(ctx, n)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "asked for N=%d: %s\n", n, state)
	}
	fmt.Fprintf(stdout, "soak     %d requests/s for %s against %s, queries about N=%d (%d solutions, %d classes)\n",
		c.rate, c.duration, c.url, c.n, total, unique)

	tally := newSoakTally()
	start := time.Now()
	sampler := &soakSampler{c: c, api: api, tally: tally, start: start, out: stdout}
	rssStart := sampler.sample(ctx)
	stopSampler := make(chan struct{})
	var sampling sync.WaitGroup
	sampling.Go(func() { sampler.every(ctx, stopSampler, c.sampleEvery) })

	// Idle keep-alives up to the server's idle share per client: past it,
	// the server closes the oldest once idle for a second, and a POST sent
	// on one just as it closes fails with EOF (Go retries only idempotent
	// requests), which is the client's doing, not the server's.
	a := vegeta.NewAttacker(vegeta.Timeout(c.timeout), vegeta.KeepAlive(true), vegeta.MaxWorkers(uint64(max(64, c.rate/10))),
		vegeta.Connections(server.DefaultConfig().MaxIdleConnectionsPerClient))
	stopAttack := context.AfterFunc(ctx, func() { a.Stop() })
	for res := range a.Attack(vegeta.NewStaticTargeter(targets...), vegeta.Rate{Freq: c.rate, Per: time.Second}, c.duration, "soak") {
		tally.add(res)
	}
	stopAttack()
	elapsed := time.Since(start)
	close(stopSampler)
	sampling.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	rssEnd := sampler.sample(ctx)
	tally.print(stdout, elapsed, c.rate)
	if c.serverPID > 0 {
		fmt.Fprintf(stdout, "rss      start %s, end %s\n", mib(rssStart), mib(rssEnd))
	}
	if _, errs := tally.counts(); errs > 0 {
		return fmt.Errorf("%d requests failed", errs)
	}
	return nil
}

func mib(kb int64) string {
	if kb < 0 {
		return "unknown"
	}
	return strconv.FormatFloat(float64(kb)/1024, 'f', 1, 64) + " MiB"
}

// soakSampler reports, now and then, how far the soak is, the server's
// resident memory, the machine's load and the watched board.
type soakSampler struct {
	c     soakConfig
	api   *soakClient
	tally *soakTally
	start time.Time
	out   io.Writer
}

// every samples every d until stop is closed or ctx ends.
func (s *soakSampler) every(ctx context.Context, stop <-chan struct{}, d time.Duration) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-tick.C:
			s.sample(ctx)
		}
	}
}

// sample writes one line and returns the server's VmRSS in kB (-1 when
// unknown).
func (s *soakSampler) sample(ctx context.Context) int64 {
	requests, errs := s.tally.counts()
	elapsed := time.Since(s.start).Round(max(s.c.sampleEvery/10, time.Millisecond))
	line := fmt.Sprintf("sample   t=%s requests %d errors %d", elapsed, requests, errs)
	rss := int64(-1)
	if s.c.serverPID > 0 {
		var err error
		if rss, err = residentKB(s.c.serverPID); err != nil {
			line += " rss " + err.Error()
		} else {
			line += " rss " + mib(rss)
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		line += " load " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	if s.c.watch > 0 {
		line += " board " + s.api.progress(ctx, s.c.watch)
	}
	fmt.Fprintln(s.out, line)
	return rss
}

// residentKB reads a process's resident set size (VmRSS) in kB.
func residentKB(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// soakClient asks the server the soak's own questions, outside the mix.
type soakClient struct {
	url, token string
	http       *http.Client
}

func (c *soakClient) do(ctx context.Context, query string, vars map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return fmt.Errorf("HTTP %d: %w", resp.StatusCode, err)
	}
	if len(answer.Errors) > 0 {
		return errors.New(answer.Errors[0].Message)
	}
	return json.Unmarshal(answer.Data, out)
}

// counts returns N's total and unique counts, which the ranks of the mix
// are drawn under.
func (c *soakClient) counts(ctx context.Context, n int) (total, unique uint64, err error) {
	var data struct {
		Count struct{ Total, Unique *string } `json:"count"`
	}
	if err := c.do(ctx, `query($n: Int!) { count(n: $n) { total unique } }`, map[string]any{"n": n}, &data); err != nil {
		return 0, 0, fmt.Errorf("counts of N=%d: %w", n, err)
	}
	if data.Count.Total == nil || data.Count.Unique == nil {
		return 0, 0, fmt.Errorf("the server does not know the counts of N=%d yet; pick a board it stores or counts on the spot", n)
	}
	total, errTotal := strconv.ParseUint(*data.Count.Total, 10, 64)
	unique, errUnique := strconv.ParseUint(*data.Count.Unique, 10, 64)
	if errTotal != nil || errUnique != nil || total == 0 || unique == 0 {
		return 0, 0, fmt.Errorf("counts of N=%d: %s and %s", n, *data.Count.Total, *data.Count.Unique)
	}
	return total, unique, nil
}

// precompute asks for board n and returns its state. (Whether it stores
// its solutions is known only once its job has planned it.)
func (c *soakClient) precompute(ctx context.Context, n int) (string, error) {
	var data struct {
		Precompute struct {
			State string `json:"state"`
		} `json:"precompute"`
	}
	if err := c.do(ctx, `mutation($n: Int!) { precompute(n: $n) { state } }`, map[string]any{"n": n}, &data); err != nil {
		return "", fmt.Errorf("precompute N=%d: %w", n, err)
	}
	return data.Precompute.State, nil
}

// progress describes where board n stands, or why that is not known.
func (c *soakClient) progress(ctx context.Context, n int) string {
	var data struct {
		Board struct {
			State    string `json:"state"`
			Progress struct {
				ChunksDone, ChunksTotal int
			} `json:"progress"`
		} `json:"board"`
	}
	err := c.do(ctx, `query($n: Int!) { board(n: $n) { state progress { chunksDone chunksTotal } } }`, map[string]any{"n": n}, &data)
	if err != nil {
		return fmt.Sprintf("N=%d unknown (%v)", n, err)
	}
	return fmt.Sprintf("N=%d %s %d/%d chunks", n, data.Board.State, data.Board.Progress.ChunksDone, data.Board.Progress.ChunksTotal)
}
