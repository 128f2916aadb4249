package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	automemlimit "github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens/internal/logwriter"
	"github.com/nqueens/nqueens/internal/memlimit"
	"github.com/nqueens/nqueens/internal/metrics"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/web"
)

const serveSynopsis = "[--addr HOST:PORT] [--max-page-size K] [--request-timeout D] [--cors-origins LIST] …"

// defaultPrecompute is what serve asks for on start: on the project's
// machine (2 cores) a first start computes and stores N=1..15 in 25 s on
// SQLite and 13 s on Postgres (docs/PERFORMANCE.md, "Precompute"); N=16
// alone takes 50 s on Postgres and 136 s on SQLite.
const defaultPrecompute = "1-15"

// metricsDatabaseTimeout bounds the database reads of one /metrics scrape.
const metricsDatabaseTimeout = 2 * time.Second

// serveOptions are what serve's settings set: the server's configuration,
// its workers', and serve's own.
type serveOptions struct {
	server   server.Config
	workers  precompute.Config
	database databaseOptions
	log      logOptions
	addr     string
	// debugAddr is where Go's profiles are served ("" for nowhere).
	debugAddr string
	// precompute is the range of boards to ask for on start ("" for none).
	precompute      string
	shutdownTimeout time.Duration
	migrate         bool
	// apiOnly runs no workers and no migrations: the process only reads.
	apiOnly bool
	// readURLs are the read replicas' Postgres URLs (none: reads go to
	// the database).
	readURLs []string
	// memoryLimit is the memory budget given (0: none), budget the one
	// decided from it or the environment after parsing; the in-flight
	// budgets follow it.
	memoryLimit int64
	budget      memlimit.Budget
}

// newServeOptions are serve's defaults: the packages' (server.DefaultConfig,
// precompute.DefaultConfig) and serve's own.
func newServeOptions() *serveOptions {
	o := &serveOptions{server: server.DefaultConfig(), workers: precompute.DefaultConfig(), database: newDatabaseOptions(),
		log: newLogOptions(slog.LevelInfo), addr: defaultAddr, precompute: defaultPrecompute, migrate: true}
	// Requests in flight take at most their time budget, by default.
	o.shutdownTimeout = o.server.RequestTimeout
	o.server.ParquetDir = filepath.Join(os.TempDir(), "nqueens-parquet")
	return o
}

// settings is serve's settings table.
func (o *serveOptions) settings() []setting {
	cfg := &o.server
	return slices.Concat([]setting{
		{flag: "addr", into: &o.addr, help: "listen on `HOST:PORT`"},
		{flag: "debug-addr", into: &o.debugAddr, help: "serve Go's profiles (/debug/pprof/) on `HOST:PORT`, e.g. 127.0.0.1:6060, never the public address; none: not served"},
		{flag: "admin-token", into: &cfg.Graph.AdminToken, help: "the bearer `TOKEN` mutations and /riverui need (Authorization: Bearer …); none: they are refused. Prefer the variable: a flag shows in the process list"},
		{flag: "migrate", into: &o.migrate, help: "apply the database migrations not applied yet on start; --migrate=false leaves the schema as it is (/readyz then says whether it is current)"},
		{flag: "api-only", into: &o.apiOnly, help: "serve the API and nothing else: no workers, no migrations (the schema's version is checked instead, /readyz says if it is behind), the mutations refused with UNAVAILABLE (reason API_ONLY). A database role that may only SELECT is enough"},
		{flag: "read-database-url", into: &o.readURLs, help: "comma-separated Postgres `URLS` of read replicas (streaming replicas of the database) the API reads from: each board from one of them once it shows the board done, else from the database, as when one is down; none: every read from the database. Prefer the variable: a flag shows in the process list"},
		{flag: "precompute", into: &o.precompute, help: "`RANGE` of boards to ask for on start, e.g. 1-14 or 8,10,12-14 (those done are skipped); none for none"},
		{flag: "shutdown-timeout", into: &o.shutdownTimeout, help: "how long requests in flight may finish on SIGINT/SIGTERM"},
		{flag: "max-page-size", into: &cfg.Graph.MaxPageSize, help: "largest first/last a page may ask for"},
		{flag: "request-timeout", into: &cfg.RequestTimeout, help: "time budget of each request, e.g. 10s (TIMEOUT past it)"},
		{flag: "max-body-bytes", into: &cfg.MaxBodyBytes, help: "largest request body (413 past it)"},
		{flag: "complexity-limit", into: &cfg.ComplexityLimit, help: "largest query complexity: a page's items count first/last times"},
		{flag: "depth-limit", into: &cfg.DepthLimit, help: "deepest nesting of fields in a query"},
		{flag: "max-tokens", into: &cfg.MaxTokens, help: "most tokens (names, punctuation, values) in a GraphQL document"},
		{flag: "max-fields", into: &cfg.MaxFields, help: "most fields in a document once its fragments are spread in place"},
		{flag: "query-cache-bytes", into: &cfg.QueryCacheBytes, help: "memory for parsed documents kept, in bytes (only documents that passed every check)"},
		{flag: "apq-cache-bytes", into: &cfg.APQCacheBytes, help: "memory for persisted queries kept, in bytes (registered once they pass every check)"},
		{flag: "solver-budget", into: &cfg.Graph.SolverBudget, help: "solver time one request may spend, all of its fields together (TIMEOUT past it)"},
		{flag: "solver-slots", into: &cfg.Graph.SolverSlots, dflt: "one per core", help: "solver searches running at once for requests, shared fairly between clients"},
		{flag: "solver-queue-per-client", into: &cfg.Graph.SolverQueuePerClient, help: "solver searches one client may have waiting or running; past it a field is refused at once with RATE_LIMITED (reason SOLVER_PER_CLIENT) and the request's other fields still answer. All clients together: this times 50 per slot"},
		{flag: "read-header-timeout", into: &cfg.ReadHeaderTimeout, help: "time a client has to send a request's headers"},
		{flag: "read-timeout", into: &cfg.ReadTimeout, help: "time a client has to send a whole request, body included"},
		{flag: "write-timeout", into: &cfg.WriteTimeout, follows: "--request-timeout plus 10s", follow: func() { cfg.WriteTimeout = server.WriteTimeoutFor(cfg.RequestTimeout) },
			help: "time to answer a request, from the end of its headers, above --request-timeout; websockets are not cut"},
		{flag: "idle-timeout", into: &cfg.IdleTimeout, help: "time a keep-alive connection may wait for its next request"},
		{flag: "max-header-bytes", into: &cfg.MaxHeaderBytes, help: "largest request headers, in bytes (431 past it)"},
		{flag: "max-connections", into: &cfg.MaxConnections, help: "connections open at once, websockets included, all clients together; past it the biggest holder's oldest idle one is closed to make room, or the new one is answered 503"},
		{flag: "max-connections-per-client", into: &cfg.MaxConnectionsPerClient,
			follows: "at most --max-connections", follow: func() { cfg.MaxConnectionsPerClient = min(cfg.MaxConnectionsPerClient, cfg.MaxConnections) },
			help: "connections one client may have open, websockets included; past it its oldest idle one is closed to make room, or the new one is answered 429"},
		{flag: "max-idle-connections-per-client", into: &cfg.MaxIdleConnectionsPerClient,
			follows: "at most --max-connections-per-client", follow: func() {
				cfg.MaxIdleConnectionsPerClient = min(cfg.MaxIdleConnectionsPerClient, cfg.MaxConnectionsPerClient)
			},
			help: "keep-alive connections one client may keep idle; past it its oldest idle ones are closed once idle for a second"},
		{flag: "cors-origins", into: &cfg.CORSOrigins, help: "comma-separated `ORIGINS` browsers may call from, e.g. https://example.com, or *; none: same origin only"},
		{flag: "count-max-n", into: &cfg.Graph.CountMaxN, help: "largest N counted on the spot when the store has no counts; 0: none"},
		{flag: "page-cache-bytes", into: &cfg.Graph.PageCacheBytes, help: "memory for the pages kept, in bytes (a quarter more for ranks); 0 turns the caches off"},
		{flag: "compressors", into: &cfg.Compressors, follows: "one per 32 MiB of --memory-limit", follow: func() { cfg.Compressors = server.DefaultCompressors(o.budget.Bytes) },
			help: "answers and exports compressed at once (gzip or zstd, as Accept-Encoding asks; about 1 MiB each), all clients together; past it, or past --compressors-per-client, an answer goes uncompressed; 0: no compression"},
		{flag: "compressors-per-client", into: &cfg.CompressorsPerClient, help: "answers and exports one client may have compressed at once"},
		{flag: "compress-min-bytes", into: &cfg.CompressMinBytes, help: "smallest answer compressed, in bytes"},
		{flag: "answer-cache-bytes", into: &cfg.AnswerCacheBytes, help: "memory for whole answers that cannot change (pages of finished boards, their counts), kept as bytes and served again to the same request without running it; 0 turns it off"},
		{flag: "direct-pages", into: &cfg.DirectPages, help: "answer page queries of the common shape (solutions or uniqueSolutions, plain fields) by writing the resolvers' results directly, not through gqlgen's executor: the same bytes for a third of the CPU; false: every query through gqlgen"},
		{flag: "rate-limit", into: &cfg.RateLimit, help: "requests a second each client (remote IP address) may make to /graphql and /export; 0: no limit"},
		{flag: "rate-burst", into: &cfg.RateBurst, help: "requests a client may make at once, above --rate-limit"},
		{flag: "trusted-proxies", into: prefixList{&cfg.TrustedProxies}, help: "comma-separated addresses and networks (`CIDRS`, e.g. 172.30.57.10 or 10.0.0.0/8) of the proxies in front (nginx, a load balancer): a request from one is its client's, the right-most address of X-Forwarded-For that is not a proxy, for the rate limit and every share, and the proxy's connections count against --max-connections only; none: X-Forwarded-For is ignored"},
		{flag: "client-ipv6-prefix", into: &cfg.ClientIPv6Prefix, help: "leading bits of an IPv6 address that name one client, for the per-client shares and the rate limit; 64: a /64 is one client"},
		{flag: "ws-max-connections", into: &cfg.WSMaxConnections, help: "websockets open at once, all clients together; past it an upgrade is refused with 503"},
		{flag: "ws-max-connections-per-client", into: &cfg.WSMaxConnectionsPerClient, help: "websockets one client (address, IPv6 network) may have open at once; past it its upgrades are refused with 429"},
		{flag: "ws-max-message-bytes", into: &cfg.WSMaxMessageBytes, help: "largest websocket message, checked on its frame headers; past it the socket is closed with 1009"},
		{flag: "ws-message-timeout", into: &cfg.WSMessageTimeout, help: "time a websocket message may take to arrive whole once it has begun; past it the socket is closed with 1008. Between messages a socket may be silent"},
		{flag: "ws-max-subscriptions", into: &cfg.WSMaxSubscriptions, help: "operations one websocket may run at once (subscriptions, queries not answered yet)"},
		{flag: "ws-init-timeout", into: &cfg.WSInitTimeout, help: "time a new websocket has to send connection_init; past it it is closed with 4408"},
		{flag: "ws-ping-interval", into: &cfg.WSPingInterval, help: "how often the server pings each websocket"},
		{flag: "ws-pong-timeout", into: &cfg.WSPongTimeout, help: "how long a websocket peer may take to answer a ping or take a message before it is dropped"},
		{flag: "sse-max-streams", into: &cfg.SSEMaxStreams, help: "event streams (GraphQL over Server-Sent Events) open at once, all clients together; past it a stream is refused with 503 before it starts"},
		{flag: "sse-max-streams-per-client", into: &cfg.SSEMaxStreamsPerClient, help: "event streams one client (address, IPv6 network) may have open at once; past it its streams are refused with 429 before they start"},
		{flag: "sse-keepalive-interval", into: &cfg.SSEKeepAlive, help: "how often an event stream with nothing to send gets a comment line, so that proxies keep it and a client gone is noticed"},
		{flag: "sse-write-timeout", into: &cfg.SSEWriteTimeout, help: "how long an event stream's client may take to take an event or a comment before the stream is cut"},
		{flag: "sse-max-duration", into: &cfg.SSEMaxDuration, help: "how long an event stream may live; then it ends without complete, and clients subscribe again"},
		{flag: "export-max-concurrent", into: &cfg.ExportMaxConcurrent, help: "downloads of /export/{n}.csv, .ndjson and .parquet running at once, all clients together (a Parquet file made already is served without one); past it they are refused with 503"},
		{flag: "export-max-per-client", into: &cfg.ExportMaxPerClient, help: "downloads of /export one client may run at once; past it they are refused with 429"},
		{flag: "export-solver-max-n", into: &cfg.ExportSolverMaxN, help: "largest N /export enumerates with the solver when the store does not hold it; 0: none"},
		{flag: "export-stall-timeout", into: &cfg.ExportStallTimeout, help: "how long a download of /export waits for its client to take the next block before it is cut (instead of --write-timeout, which would cut a long download going well)"},
		{flag: "export-max-duration", into: &cfg.ExportMaxDuration, help: "how long a whole download of /export may take, however well it goes; N=16 (600 MB of CSV) takes 8 minutes at 10 Mbit/s"},
		{flag: "parquet-dir", into: &cfg.ParquetDir, dflt: "nqueens-parquet in the temporary directory ($TMPDIR, else /tmp)", help: "`DIR` where /export/{n}.parquet of a board the database holds done is made once and kept, then served with Range and ETag (servers may share it); empty: every Parquet export streams"},
		{flag: "parquet-dir-max-bytes", into: byteCount{&cfg.ParquetDirMaxBytes}, help: "disk `BYTES` the files of --parquet-dir may take together (e.g. 1GiB); past it the least recently served are removed, and a file larger than this is served once and removed"},
		{flag: "memory-limit", into: byteCount{&o.memoryLimit}, dflt: "GOMEMLIMIT, else the container's cgroup limit, else " + memlimit.Format(server.DefaultMemoryBudget),
			help: "the memory `BYTES` the process serves within (e.g. 512MiB): the Go runtime's soft limit is 90% of it (40 MiB less when that is less), with GOGC " + strconv.Itoa(memlimit.DefaultGOGC) + " unless GOGC is set; requests in flight hold up to a quarter of it. At least " + memlimit.Format(memlimit.MinBudget)},
		{flag: "inflight-bytes", into: byteCount{&cfg.InflightBytes},
			follows: "a quarter of --memory-limit", follow: func() { cfg.InflightBytes = server.DefaultInflightBytes(o.budget.Bytes) },
			help: "memory `BYTES` requests in flight may hold, all clients together (bodies, documents, expected answers); past it they wait up to --admission-wait, then are refused with 503"},
		{flag: "inflight-bytes-per-client", into: byteCount{&cfg.InflightBytesPerClient},
			follows: "an eighth of --inflight-bytes", follow: func() { cfg.InflightBytesPerClient = cfg.InflightBytes / 8 },
			help: "memory `BYTES` one client's requests in flight may hold; past it they wait, then are refused with 429 (a request larger than it at once, 400 MEMORY_PER_REQUEST)"},
		{flag: "admission-wait", into: &cfg.AdmissionWait, help: "how long a request waits for room in the in-flight memory, or for its turn to compute a heavy answer, before it is refused"},
		{flag: "answer-slots", into: &cfg.AnswerSlots, dflt: "half the cores", help: "heavy answers (priced at 1 MiB or more: hundreds of pictures, the schema's introspection, completions of large boards) computed at once, one per client at a time; the others wait their turn, clients computing none first"},
	}, workerSettings(&o.workers, false), o.database.settings(), o.log.settings())
}

// runServe starts the GraphQL server, opens the database (DATABASE_URL,
// else the SQLite file; waiting for it while it is unreachable), applies
// its migrations, starts the workers and runs until ctx ends (SIGINT or
// SIGTERM), then shuts down gracefully: it stops accepting, ends the
// subscriptions, lets the requests in flight finish (bounded by
// --shutdown-timeout), stops the workers, closes the database and exits 0.
//
// Boards the store holds DONE with their solutions page from the store;
// every other board pages from the solver, with the same cursors.
func runServe(ctx context.Context, args []string, c console) error {
	o := newServeOptions()
	t := newSettings("serve", o.settings())
	pos, err := t.parse(args, c, serveSynopsis+"\n\nThe database: "+databaseEnvUsage+".\n"+tracingUsage+"\nEach flag's environment twin ($…) sets its default; the flag given wins.")
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %s", strings.Join(pos, " "))
	}
	// The memory budget: the setting, GOMEMLIMIT, the container's limit
	// or the default; then the settings that follow others, the in-flight
	// budgets among them, unless given.
	o.budget, err = memlimit.Decide(memlimit.Inputs{Setting: o.memoryLimit, SettingName: t.name("memory-limit"),
		LookupEnv: c.lookupEnv, Cgroup: automemlimit.FromCgroup, Default: server.DefaultMemoryBudget})
	if err != nil {
		return usagef("%v", err)
	}
	t.follow()
	cfg := &o.server
	if t.isSet("write-timeout") && cfg.WriteTimeout > 0 && cfg.WriteTimeout <= cfg.RequestTimeout {
		return usagef("%s (%s) must be longer than %s (%s), or answers would be cut before their time budget ends", t.name("write-timeout"), cfg.WriteTimeout, t.name("request-timeout"), cfg.RequestTimeout)
	}
	// A page size smaller than the default page makes that page smaller.
	cfg.Graph.DefaultPageSize = min(cfg.Graph.DefaultPageSize, cfg.Graph.MaxPageSize)
	if err := t.refusal(cfg, cfg.Check()); err != nil {
		return err
	}
	if o.shutdownTimeout < 0 {
		return usagef("%s must not be negative, got %s", t.name("shutdown-timeout"), o.shutdownTimeout)
	}
	if err := t.refusal(&o.workers, o.workers.Check()); err != nil {
		return err
	}
	if o.precompute != "" {
		if _, err := service.ParseBoards(o.precompute); err != nil {
			return usagef("%s: %v", t.name("precompute"), err)
		}
	}
	db, err := o.database.database(t)
	if err != nil {
		return err
	}
	if err := o.checkAPIOnly(t, db); err != nil {
		return err
	}
	budget := o.budget

	// The request log is a line a request: written from a goroutine of
	// its own, a busy server's lines go out many to a write.
	logs := logwriter.New(c.stderr)
	defer logs.Close()
	logger := o.log.logger(logs)
	tr, stopTracing, err := startTracing(ctx, c, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	// The runtime's soft limit and GOGC, for as long as serve runs (the
	// tests run it in their own process).
	defer budget.Apply()()
	logger.Info("memory budget", "budget", memlimit.Format(budget.Bytes), "source", string(budget.Source),
		"soft_limit", memlimit.Approx(budget.SoftLimit), "gogc", budget.GOGC, "gogc_source", budget.GOGCSource,
		"inflight_bytes", memlimit.Format(cfg.InflightBytes), "inflight_bytes_per_client", memlimit.Format(cfg.InflightBytesPerClient),
		"admission_wait", cfg.AdmissionWait.String(), "answer_slots", cfg.AnswerSlots)
	if budget.CgroupProblem != "" {
		logger.Warn("the container's memory limit could not be read; the budget is the default", "error", budget.CgroupProblem)
	}
	// Listen first: a bad address fails before the database is touched.
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if o.debugAddr != "" {
		if _, err := serveDebug(ctx, o.debugAddr, logger); err != nil {
			return fmt.Errorf("--debug-addr: %w", err)
		}
	}

	// The store: Postgres or the SQLite file, migrated unless told not to.
	// It comes up in the background, workers and all (internal/service):
	// the server answers at once, UNAVAILABLE for what needs the database
	// until it is reachable, and /readyz says when it is.
	// The boards this process's workers start, finish or fail: their
	// subscribers hear of it at once (the server exists once the store's
	// startup is set up, so the hook reads it late).
	var served atomic.Pointer[server.Server]
	engineCfg := engineConfig(o.workers, logger)
	engineCfg.TracerProvider = tr.TracerProvider()
	engineCfg.OnBoardChanged = func(n int) {
		if srv := served.Load(); srv != nil {
			srv.Resolver().PokeBoard(n)
		}
	}
	// The metrics at /metrics (internal/metrics): the store's calls are
	// timed (its observer), the database's boards and jobs read at each
	// scrape.
	m := metrics.New()
	up := service.NewStartup(service.Config{Database: db, Migrate: o.migrate, Workers: engineCfg,
		Precompute: o.precompute, ReadURLs: o.readURLs, APIOnly: o.apiOnly, Logger: logger, Observe: m.ObserveStore})
	defer up.Close()
	stored := up.Store()

	cfg.Graph.Boards, cfg.Graph.Stored, cfg.Graph.Plans = stored, stored, up
	cfg.ExportStore = stored
	// The precompute workers, over the same database: they fill the
	// store, the precompute mutation asks them for boards, and River UI
	// shows their jobs at /riverui.
	cfg.Graph.Precompute = up
	cfg.Graph.OnCacheLookup = m.CacheLookup
	cfg.OnOperation = m.Operation
	cfg.Logger = logger
	cfg.TracerProvider = tr.TracerProvider()

	srv, err := server.New(*cfg)
	if err != nil {
		return err
	}
	served.Store(srv)
	up.Mount(srv, cfg.Graph.AdminToken) // /readyz and /riverui
	m.WatchDatabase(up.Store(), up, metricsDatabaseTimeout, logger)
	watchReplicas(m, up)
	m.WatchPools(srv.Pools)
	m.MemoryBudget(budget.Bytes)
	watchShedding(m, srv)
	// No token for the metrics: operators keep them on their network.
	srv.Handle("GET /metrics", m.Handler())
	srv.Handle("/", web.Handler()) // the board viewer

	hs := srv.HTTPServer()
	fmt.Fprintf(c.stdout, "nqueens: serving GraphQL on http://%s/graphql (playground: /playground)\n", ln.Addr())
	if f, ok := c.stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	logger.Info("serving", "addr", ln.Addr().String(), "database", db.String(), "migrate", o.migrate && !o.apiOnly, "api_only", o.apiOnly,
		"page_cache", cfg.Graph.PageCacheBytes, "admin_token", cfg.Graph.AdminToken != "", "precompute", cfg.Graph.Precompute != nil && !o.apiOnly)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(srv.Listener(ln)) }()
	if err := up.Run(ctx); err != nil {
		return err // a bad URL, a failing migration: not worth waiting for
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", o.shutdownTimeout.String())
	srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// watchShedding reports what the server refuses or closes besides its
// pools' refusals, and what it follows for subscribers.
func watchShedding(m *metrics.Metrics, srv *server.Server) {
	m.WatchRefusals("rate_limit", func() (int64, int64) { return srv.RateLimited(), 0 })
	m.WatchCounts("nqueens_websocket_refusals_total",
		"Websocket messages and operations refused, by reason (message too big or too slow: the socket is closed; rate limited, too many operations: an error message).",
		"reason", prometheus.CounterValue, srv.WebsocketRefusals)
	m.WatchCounts("nqueens_connections_closed_total",
		"Connections the server closed or refused to keep its bounds, by reason: idle_share (a client kept more idle keep-alives than its share), evicted_client, evicted_total, evicted_silent (closed to make room for a new one), unanswered (refused while too many refusals were being written).",
		"reason", prometheus.CounterValue, func() map[string]int64 {
			st := srv.Connections()
			return map[string]int64{"idle_share": st.IdleClosed, "evicted_client": st.EvictedForClient,
				"evicted_total": st.EvictedForTotal, "evicted_silent": st.EvictedSilent, "unanswered": st.Unanswered}
		})
	m.WatchCounts("nqueens_answer_cache_requests_total",
		"Requests the answer cache could answer (queries without a token), by result: hit (answered with the kept bytes) or miss (run, and kept when the answer cannot change).",
		"result", prometheus.CounterValue, func() map[string]int64 {
			hits, misses := srv.AnswerCacheStats()
			return map[string]int64{"hit": hits, "miss": misses}
		})
	m.WatchCounts("nqueens_connections", "Connections open now, by state (open: all of them, websockets included; idle: waiting for their next request).",
		"state", prometheus.GaugeValue, func() map[string]int64 {
			st := srv.Connections()
			return map[string]int64{"open": int64(st.Open), "idle": int64(st.Idle)}
		})
	m.WatchCounts("nqueens_subscriptions", "What boardProgress follows now: boards with subscribers, their subscribers, and the boards polled (being computed).",
		"what", prometheus.GaugeValue, func() map[string]int64 {
			st := srv.Resolver().SubscriptionStats()
			return map[string]int64{"boards": int64(st.Boards), "subscribers": int64(st.Subscribers), "polled": int64(st.Polling)}
		})
}

// checkAPIOnly refuses the settings that contradict --api-only (it applies
// no migrations and asks for no boards) or the read replicas (Postgres
// servers, beside a Postgres database).
func (o *serveOptions) checkAPIOnly(t *settingsTable, db service.Database) error {
	if len(o.readURLs) > 0 && db.Dialect() != migrations.Postgres {
		return usagef("%s: read replicas are Postgres servers; they need %s too (the database is %s)", t.name("read-database-url"), t.name("database-url"), db)
	}
	if !o.apiOnly {
		return nil
	}
	if t.isSet("migrate") && o.migrate {
		return usagef("%s applies no migrations: leave %s out (a process whose role may write runs nqueens migrate up)", t.name("api-only"), t.name("migrate"))
	}
	if t.isSet("precompute") && o.precompute != "" && o.precompute != "none" {
		return usagef("%s asks for no boards: leave %s out (a process with workers asks for them)", t.name("api-only"), t.name("precompute"))
	}
	return nil
}

// watchReplicas reports the read replicas: up or down, and the reads each
// answered.
func watchReplicas(m *metrics.Metrics, up *service.Startup) {
	m.WatchCounts("nqueens_read_replica_up", "1 for each read replica that answers, 0 for one down (its boards are read from the primary).",
		"replica", prometheus.GaugeValue, func() map[string]int64 {
			out := map[string]int64{}
			for _, s := range up.Replicas() {
				out[s.Name] = 0
				if s.Up {
					out[s.Name] = 1
				}
			}
			return out
		})
	m.WatchCounts("nqueens_read_replica_reads_total", "Reads of the store that each read replica answered (the rest go to the primary).",
		"replica", prometheus.CounterValue, func() map[string]int64 {
			out := map[string]int64{}
			for _, s := range up.Replicas() {
				out[s.Name] = s.Reads
			}
			return out
		})
}
