// Command nqueens-load drives a running nqueens server with GraphQL page
// requests and reports what it sustained: requests per second, latency
// percentiles and errors (docs/PERFORMANCE.md, "GraphQL API"). It uses
// vegeta as a library.
//
//	nqueens-load [--url URL] [--n 16] [--first 20] [--concurrency 64] [--duration 30s] …
//
// Every request is
//
//	solutions(n: N, first: FIRST, after: CURSOR) { totalCount edges { cursor node { placement } } pageInfo { … } }
//
// with CURSOR taken in turn from --cursors cursors spread over the whole
// listing of N (the solver finds them: the first solutions of prefix chunks
// spaced evenly from the first to the last). CONCURRENCY workers send
// requests back to back, each as soon as its previous answer is in. An
// answer is an error unless it is HTTP 200 with data and no GraphQL errors.
// It exits 1 when any request failed.
//
// With --floor it also starts a floor (floor.go): a bare net/http server,
// in a process of its own, answering every request with the bytes and
// headers the server gave for the first page. It measures the server and
// the floor in turn, --rounds times, and prints the ratio of their
// requests per second and of their p99 latencies: what the server costs
// above the transport, in a figure that means the same on any machine.
//
// The hidden setup command stores a board, so that the server pages it from
// the store:
//
//	nqueens-load fill N [--database-url URL | --sqlite-path FILE]
//
// computes board N with its solutions into the database the settings
// select, as nqueens has them (--database-url or DATABASE_URL, else the
// SQLite file at --sqlite-path or NQUEENS_SQLITE_PATH, default
// ./nqueens.db): the precompute engine plans it and works its jobs in this
// process, as `nqueens precompute --wait` does. A board that is done
// already is left as it is.
//
// Three more hidden commands measure what docs/PERFORMANCE.md ("Soak") and
// docs/SCALING.md report:
//
//	nqueens-load soak [--url URL] [--n 15] [--rate 200] [--duration 10m] [--server-pid PID] [--precompute 16,19] …
//
// sends a mix of queries (pages, unique pages, solutionAt, count, board,
// validate, node) at a fixed rate after asking for the --precompute boards
// with the admin token, and reports errors, latency and the server's
// resident memory every minute (soak.go);
//
//	nqueens-load estimate N [--sample K] [--seed S] [--budget D] [--total T]
//
// times a seeded random sample of the counter's tasks of N and estimates
// the CPU time of counting all of N, with a 95% interval (estimate.go);
//
//	nqueens-load plan N [--tasks-per-chunk K]
//
// plans a counts-only board of N in the Postgres database of
// --database-url (DATABASE_URL) with K tasks a chunk and queues its chunk
// jobs as the engine's board job does, for `nqueens worker` processes to
// work: with one task a chunk, a measure of River's jobs per second
// (plan.go).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	command := ""
	if len(os.Args) > 1 {
		command = os.Args[1]
	}
	switch command {
	case "fill":
		err = runFill(ctx, os.Args[2:], os.LookupEnv, os.Stdout)
	case "estimate":
		err = runEstimate(ctx, os.Args[2:], os.Stdout)
	case "soak":
		err = runSoak(ctx, os.Args[2:], os.Stdout)
	case "plan":
		err = runPlan(ctx, os.Args[2:], os.LookupEnv, os.Stdout)
	case "floor":
		err = runFloor(ctx, os.Args[2:], os.Stdout)
	default:
		err = runLoad(ctx, os.Args[1:], os.Stdout)
	}
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		fmt.Fprintf(os.Stderr, "nqueens-load: %v\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "nqueens-load: %v\n", err)
		os.Exit(1)
	}
}

type usageError string

func (e usageError) Error() string { return string(e) }

// config is what one load run does.
type config struct {
	url         string
	n, first    int
	cursors     int
	concurrency int
	duration    time.Duration
	warmup      time.Duration
	timeout     time.Duration
	encoding    string // Accept-Encoding of the requests, "" for none
	get         bool   // send GET requests, the query in the query string
	floor       bool   // also measure the floor (floor.go), alternating
	rounds      int    // rounds of server then floor, with floor
}

func runLoad(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080/graphql", "the server's GraphQL endpoint")
	fs.IntVar(&c.n, "n", 16, "board size whose solutions are paged")
	fs.IntVar(&c.first, "first", 20, "page size (first)")
	fs.IntVar(&c.cursors, "cursors", 1000, "how many cursors, spread over the whole listing, the requests take in turn")
	fs.IntVar(&c.concurrency, "concurrency", 64, "requests in flight: workers sending back to back")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "how long to measure")
	fs.DurationVar(&c.warmup, "warmup", 3*time.Second, "how long to send before measuring (not reported)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "time limit of one request")
	fs.StringVar(&c.encoding, "encoding", "", "ask for answers compressed: gzip or zstd (sent as Accept-Encoding; answers are checked once decoded); none: identity")
	fs.BoolVar(&c.get, "get", false, "send each page as a GET (query, operationName and variables in the query string), which caches in front may keep; the answers' X-Cache-Status (nginx's) is counted")
	fs.BoolVar(&c.floor, "floor", false, "also measure a bare net/http server answering the same bytes, alternating with the server, and print the ratio")
	fs.IntVar(&c.rounds, "rounds", 3, "with --floor: rounds of the server then the floor, each --duration long")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil // the flag package printed the flags
	} else if err != nil {
		return usageError(err.Error())
	}
	switch {
	case fs.NArg() > 0:
		return usageError("unexpected arguments: " + strings.Join(fs.Args(), " "))
	case c.n < 4 || c.n > solver.MaxSearchN:
		return usageError(fmt.Sprintf("--n must be from 4 to %d", solver.MaxSearchN))
	case c.encoding != "" && c.encoding != "gzip" && c.encoding != "zstd":
		return usageError("--encoding must be gzip or zstd")
	case c.first < 1 || c.cursors < 1 || c.concurrency < 1 || c.duration <= 0 || c.warmup < 0 || c.rounds < 1:
		return usageError("--first, --cursors, --concurrency, --duration and --rounds must be positive")
	}

	cursors, err := spreadCursors(ctx, c.n, c.cursors)
	if err != nil {
		return err
	}
	targets, err := buildTargets(c, cursors)
	if err != nil {
		return err
	}
	method := http.MethodPost
	if c.get {
		method = http.MethodGet
	}
	fmt.Fprintf(stdout, "target   %s %s\nquery    solutions(n: %d, first: %d, after: <%d cursors over the whole listing>)\nworkers  %d, back to back, for %s after %s of warm-up\nGOMAXPROCS %d\n",
		method, c.url, c.n, c.first, len(cursors), c.concurrency, c.duration, c.warmup, runtime.GOMAXPROCS(0))

	if !c.floor {
		r, err := warmAndMeasure(ctx, c, targets, stdout)
		if err != nil {
			return err
		}
		if r.errors > 0 {
			return fmt.Errorf("%d of %d requests failed", r.errors, r.requests)
		}
		return nil
	}
	s, err := takeSample(ctx, targets[0])
	if err != nil {
		return err
	}
	floor, err := startFloor(ctx, s)
	if err != nil {
		return err
	}
	defer floor.stop()
	fmt.Fprintf(stdout, "floor    %s answers the %d bytes of the first page, %d rounds\n", floor.url, len(s.body), c.rounds)
	var cmp comparison
	failed := uint64(0)
	for round := 1; round <= c.rounds; round++ {
		fmt.Fprintf(stdout, "\n-- round %d: server\n", round)
		r, err := warmAndMeasure(ctx, c, targets, stdout)
		if err != nil {
			return err
		}
		failed += r.errors
		fmt.Fprintf(stdout, "\n-- round %d: floor\n", round)
		f, err := warmAndMeasure(ctx, c, onFloor(targets, floor.url), stdout)
		if err != nil {
			return err
		}
		failed += f.errors
		cmp.server, cmp.floor = append(cmp.server, r), append(cmp.floor, f)
	}
	fmt.Fprintln(stdout)
	cmp.print(stdout)
	if failed > 0 {
		return fmt.Errorf("%d requests failed", failed)
	}
	return nil
}

// warmAndMeasure sends the targets for c.warmup unmeasured, then for
// c.duration measured, and prints the measure.
func warmAndMeasure(ctx context.Context, c config, targets []vegeta.Target, stdout io.Writer) (*result, error) {
	if c.warmup > 0 {
		w, err := attack(ctx, c, targets, c.warmup, "warmup")
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stdout, "warm-up  %d requests, %d errors\n", w.requests, w.errors)
	}
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	r, err := attack(ctx, c, targets, c.duration, "load")
	if err != nil {
		return nil, err
	}
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	r.cpu = cpuTime(after) - cpuTime(before)
	r.print(stdout)
	return r, nil
}

// spreadCursors returns up to k cursors of the full listing of N, spread
// from its start to its end: the solver's first solutions after k prefix
// chunks chosen evenly among all chunks, each a few solutions further in so
// that they are not all chunk starts; never the last solution, whose page
// is empty.
func spreadCursors(ctx context.Context, n, k int) ([]string, error) {
	chunks, err := solver.Chunks(n, solver.DefaultChunkDepth(n))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for i := range k {
		ch := chunks[i*len(chunks)/k]
		page, err := solver.Page(ctx, solver.PageQuery{N: n, Cursor: ch.Prefix, Limit: 1 + i%23})
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			continue // past the last solution
		}
		p := page[len(page)-1]
		if next, err := solver.Page(ctx, solver.PageQuery{N: n, Cursor: p, Limit: 1}); err != nil || len(next) == 0 {
			continue // the last solution: its page would be empty
		}
		c := graph.EncodeCursor(false, p)
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("board N=%d has no solutions to page", n)
	}
	return out, nil
}

const pageQuery = `query Page($n: Int!, $first: Int!, $after: String) {
  solutions(n: $n, first: $first, after: $after) {
    totalCount
    edges { cursor node { placement } }
    pageInfo { hasNextPage endCursor }
  }
}`

func buildTargets(c config, cursors []string) ([]vegeta.Target, error) {
	header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/graphql-response+json"}}
	// Named always: left out, Go's transport would ask for gzip and
	// undo it on its own, unmeasured.
	header.Set("Accept-Encoding", "identity")
	markResendable(header)
	if c.encoding != "" {
		header.Set("Accept-Encoding", c.encoding)
	}
	out := make([]vegeta.Target, len(cursors))
	for i, cur := range cursors {
		variables := map[string]any{"n": c.n, "first": c.first, "after": cur}
		if c.get {
			vars, err := json.Marshal(variables)
			if err != nil {
				return nil, err
			}
			q := url.Values{"query": {pageQuery}, "operationName": {"Page"}, "variables": {string(vars)}}
			out[i] = vegeta.Target{Method: http.MethodGet, URL: c.url + "?" + q.Encode(), Header: header}
			continue
		}
		body, err := json.Marshal(map[string]any{"query": pageQuery, "operationName": "Page", "variables": variables})
		if err != nil {
			return nil, err
		}
		out[i] = vegeta.Target{Method: http.MethodPost, URL: c.url, Body: body, Header: header}
	}
	return out, nil
}

// markResendable marks a query's request as safe to send again. The server
// closes keep-alive connections a client leaves idle past its share; one
// closed just as a request went out on it fails with EOF, and Go's client
// sends a POST again only when told it is idempotent, by an
// Idempotency-Key entry, which with no value is not sent (net/http's
// Transport). Browsers resend such requests on their own.
func markResendable(h http.Header) { h["Idempotency-Key"] = nil }

// result sums up one attack.
type result struct {
	requests, errors uint64
	elapsed          time.Duration
	latencies        []time.Duration
	codes            map[uint16]uint64
	// cacheStatus counts the answers' X-Cache-Status (a cache in front:
	// HIT, MISS, …), "" for answers without one.
	cacheStatus map[string]uint64
	firstErrors []string
	bytesIn     uint64
	cpu         time.Duration // the load generator's own CPU time
}

func cpuTime(u syscall.Rusage) time.Duration {
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// attack runs the targets in turn for d and checks every answer. (An
// attacker serves one attack: it is stopped at the end.)
func attack(ctx context.Context, c config, targets []vegeta.Target, d time.Duration, name string) (*result, error) {
	a := vegeta.NewAttacker(
		vegeta.Workers(uint64(c.concurrency)),
		vegeta.MaxWorkers(uint64(c.concurrency)),
		vegeta.Connections(c.concurrency),
		vegeta.MaxConnections(c.concurrency),
		vegeta.KeepAlive(true),
		vegeta.Timeout(c.timeout),
	)
	r := &result{codes: map[uint16]uint64{}, cacheStatus: map[string]uint64{}}
	stop := context.AfterFunc(ctx, func() { a.Stop() })
	defer stop()
	start := time.Now()
	for res := range a.Attack(vegeta.NewStaticTargeter(targets...), vegeta.Rate{}, d, name) {
		r.requests++
		r.codes[res.Code]++
		r.cacheStatus[res.Headers.Get("X-Cache-Status")]++
		r.bytesIn += res.BytesIn
		r.latencies = append(r.latencies, res.Latency)
		if msg := check(res); msg != "" {
			r.errors++
			if len(r.firstErrors) < 5 {
				r.firstErrors = append(r.firstErrors, msg)
			}
		}
	}
	r.elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// check says what is wrong with an answer, "" when nothing.
func check(res *vegeta.Result) string {
	body, err := decoded(res)
	switch {
	case err != nil:
		return err.Error()
	case res.Error != "":
		return res.Error
	case res.Code != http.StatusOK:
		return "HTTP " + strconv.Itoa(int(res.Code))
	case bytes.Contains(body, []byte(`"errors"`)):
		return "GraphQL errors: " + string(body[:min(len(body), 300)])
	case !bytes.Contains(body, []byte(`"edges":[{`)):
		return "no edges: " + string(body[:min(len(body), 300)])
	}
	return ""
}

// decoded is an answer's body with its Content-Encoding undone.
func decoded(res *vegeta.Result) ([]byte, error) {
	var r io.Reader
	switch enc := res.Headers.Get("Content-Encoding"); enc {
	case "":
		return res.Body, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(res.Body))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(res.Body), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("Content-Encoding %q", enc)
	}
	return io.ReadAll(r)
}

// rate is the requests per second the attack sustained.
func (r *result) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// quantile is the latency below which a fraction f of the answers came.
func (r *result) quantile(f float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	slices.Sort(r.latencies)
	return r.latencies[int(f*float64(len(r.latencies)-1))]
}

func (r *result) print(w io.Writer) {
	q := r.quantile
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
	}
	var codes []string
	for code, k := range r.codes {
		codes = append(codes, fmt.Sprintf("%d: %d", code, k))
	}
	sort.Strings(codes)
	fmt.Fprintf(w, "requests %d in %s\n", r.requests, r.elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "rate     %.0f requests/s\n", r.rate())
	fmt.Fprintf(w, "latency  p50 %s, p90 %s, p99 %s, max %s\n", ms(q(0.50)), ms(q(0.90)), ms(q(0.99)), ms(q(1)))
	fmt.Fprintf(w, "errors   %d (%.3f%%)\n", r.errors, 100*float64(r.errors)/float64(max(r.requests, 1)))
	fmt.Fprintf(w, "status   %s\n", strings.Join(codes, ", "))
	if len(r.cacheStatus) > 1 || r.cacheStatus[""] == 0 {
		var statuses []string
		for status, k := range r.cacheStatus {
			if status == "" {
				status = "none"
			}
			statuses = append(statuses, fmt.Sprintf("%s: %d", status, k))
		}
		sort.Strings(statuses)
		fmt.Fprintf(w, "cache    %s (X-Cache-Status); hit ratio %.2f%%\n", strings.Join(statuses, ", "),
			100*float64(r.cacheStatus["HIT"])/float64(max(r.requests, 1)))
	}
	fmt.Fprintf(w, "bytes in %.0f per answer\n", float64(r.bytesIn)/float64(max(r.requests, 1)))
	fmt.Fprintf(w, "cpu      %.1f s used by this load generator (%.2f cores)\n", r.cpu.Seconds(), r.cpu.Seconds()/r.elapsed.Seconds())
	for _, e := range r.firstErrors {
		fmt.Fprintf(w, "error    %s\n", e)
	}
}

// parseBoardArgs parses the flags of a command that takes one board size,
// given before or after the flags, and returns it; errHelp after --help.
func parseBoardArgs(fs *flag.FlagSet, args []string, usage string) (string, error) {
	var nArg []string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		nArg, args = args[:1], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", err
		}
		return "", usageError(err.Error())
	}
	if nArg = append(nArg, fs.Args()...); len(nArg) != 1 {
		return "", usageError(usage)
	}
	return nArg[0], nil
}

// runFill stores board N with its solutions as `nqueens precompute
// --wait` does: it opens the database (migrating it), asks the precompute
// engine for the board and works its jobs here until it is done.
func runFill(ctx context.Context, args []string, env lookupEnv, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load fill", flag.ContinueOnError)
	database := databaseFlags(fs, env)
	nArg, err := parseBoardArgs(fs, args, "usage: nqueens-load fill N [--database-url URL | --sqlite-path FILE]")
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	n, err := strconv.Atoi(nArg)
	if err != nil || n < 1 || n > 16 {
		return usageError("fill: N must be a board size from 1 to 16 (all its solutions are stored)")
	}
	db, err := database()
	if err != nil {
		return err
	}
	cfg := engineConfig(stdout)
	cfg.StoreMaxN = max(cfg.StoreMaxN, n)
	st, j, err := service.Open(ctx, db, true, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if b, err := st.Board(ctx, n); err == nil && b.State == store.Done {
		fmt.Fprintf(stdout, "N=%d is done already: %d solutions\n", n, b.Counts.Total)
		return nil
	}

	start := time.Now()
	if err := j.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	defer j.Shutdown()
	stores := true
	b, err := j.Precompute(ctx, store.BoardRequest{N: n, RequestedBy: "nqueens-load fill"}, &stores)
	if err != nil {
		return err
	}
	if err := progress.Watch(ctx, st, []int{n}, []store.Board{b}, stdout); err != nil {
		return err
	}
	if b, err = st.Board(ctx, n); err != nil {
		return err
	}
	if b.State != store.Done || !b.StoresSolutions {
		return fmt.Errorf("board N=%d is %s (stores solutions %t); fill needs it done with its solutions", n, b.State, b.StoresSolutions)
	}
	fmt.Fprintf(stdout, "N=%d stored: %d solutions in %s\n", n, b.Counts.Total, time.Since(start).Round(time.Millisecond))
	return nil
}
