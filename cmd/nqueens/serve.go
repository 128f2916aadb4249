package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"time"

	automemlimit "github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens/internal/memlimit"
	"github.com/nqueens/nqueens/internal/metrics"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/internal/storemetrics"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/web"
)

const serveSynopsis = "[--addr HOST:PORT] [--max-page-size K] [--request-timeout D] [--cors-origins LIST] …"

// metricsDatabaseTimeout bounds the database reads of one /metrics scrape.
const metricsDatabaseTimeout = 2 * time.Second

// serveEnv are the environment twins of serve's own flags (settings.go),
// with the field of server.Config each sets.
var serveEnv = []envFlag{
	{"addr", "NQUEENS_ADDR", ""},
	{"admin-token", "NQUEENS_ADMIN_TOKEN", "Graph.AdminToken"},
	{"rate-limit", "NQUEENS_RATE_LIMIT", "RateLimit"},
	{"rate-burst", "NQUEENS_RATE_BURST", "RateBurst"},
	{"max-page-size", "NQUEENS_MAX_PAGE_SIZE", "Graph.MaxPageSize"},
	{"request-timeout", "NQUEENS_REQUEST_TIMEOUT", "RequestTimeout"},
	{"cors-origins", "NQUEENS_CORS_ORIGINS", "CORSOrigins"},
	{"count-max-n", "NQUEENS_COUNT_MAX_N", "Graph.CountMaxN"},
	{"page-cache-bytes", "NQUEENS_PAGE_CACHE_BYTES", "Graph.PageCacheBytes"},
	{"max-body-bytes", "NQUEENS_MAX_BODY_BYTES", "MaxBodyBytes"},
	{"complexity-limit", "NQUEENS_COMPLEXITY_LIMIT", "ComplexityLimit"},
	{"depth-limit", "NQUEENS_DEPTH_LIMIT", "DepthLimit"},
	{"solver-budget", "NQUEENS_SOLVER_BUDGET", "Graph.SolverBudget"},
	{"solver-slots", "NQUEENS_SOLVER_SLOTS", "Graph.SolverSlots"},
	{"solver-queue-per-client", "NQUEENS_SOLVER_QUEUE_PER_CLIENT", "Graph.SolverQueuePerClient"},
	{"max-tokens", "NQUEENS_MAX_TOKENS", "MaxTokens"},
	{"max-fields", "NQUEENS_MAX_FIELDS", "MaxFields"},
	{"query-cache-bytes", "NQUEENS_QUERY_CACHE_BYTES", "QueryCacheBytes"},
	{"apq-cache-bytes", "NQUEENS_APQ_CACHE_BYTES", "APQCacheBytes"},
	{"read-header-timeout", "NQUEENS_READ_HEADER_TIMEOUT", "ReadHeaderTimeout"},
	{"read-timeout", "NQUEENS_READ_TIMEOUT", "ReadTimeout"},
	{"write-timeout", "NQUEENS_WRITE_TIMEOUT", "WriteTimeout"},
	{"idle-timeout", "NQUEENS_IDLE_TIMEOUT", "IdleTimeout"},
	{"max-header-bytes", "NQUEENS_MAX_HEADER_BYTES", "MaxHeaderBytes"},
	{"max-connections", "NQUEENS_MAX_CONNECTIONS", "MaxConnections"},
	{"max-connections-per-client", "NQUEENS_MAX_CONNECTIONS_PER_CLIENT", "MaxConnectionsPerClient"},
	{"max-idle-connections-per-client", "NQUEENS_MAX_IDLE_CONNECTIONS_PER_CLIENT", "MaxIdleConnectionsPerClient"},
	{"shutdown-timeout", "NQUEENS_SHUTDOWN_TIMEOUT", ""},
	{"ws-max-connections", "NQUEENS_WS_MAX_CONNECTIONS", "WSMaxConnections"},
	{"ws-max-connections-per-client", "NQUEENS_WS_MAX_CONNECTIONS_PER_CLIENT", "WSMaxConnectionsPerClient"},
	{"ws-max-message-bytes", "NQUEENS_WS_MAX_MESSAGE_BYTES", "WSMaxMessageBytes"},
	{"ws-message-timeout", "NQUEENS_WS_MESSAGE_TIMEOUT", "WSMessageTimeout"},
	{"ws-max-subscriptions", "NQUEENS_WS_MAX_SUBSCRIPTIONS", "WSMaxSubscriptions"},
	{"ws-init-timeout", "NQUEENS_WS_INIT_TIMEOUT", "WSInitTimeout"},
	{"ws-ping-interval", "NQUEENS_WS_PING_INTERVAL", "WSPingInterval"},
	{"ws-pong-timeout", "NQUEENS_WS_PONG_TIMEOUT", "WSPongTimeout"},
	{"export-max-concurrent", "NQUEENS_EXPORT_MAX_CONCURRENT", "ExportMaxConcurrent"},
	{"export-max-per-client", "NQUEENS_EXPORT_MAX_PER_CLIENT", "ExportMaxPerClient"},
	{"export-solver-max-n", "NQUEENS_EXPORT_SOLVER_MAX_N", "ExportSolverMaxN"},
	{"client-ipv6-prefix", "NQUEENS_CLIENT_IPV6_PREFIX", "ClientIPv6Prefix"},
	{"memory-limit", "NQUEENS_MEMORY_LIMIT", ""},
	{"inflight-bytes", "NQUEENS_INFLIGHT_BYTES", "InflightBytes"},
	{"inflight-bytes-per-client", "NQUEENS_INFLIGHT_BYTES_PER_CLIENT", "InflightBytesPerClient"},
	{"admission-wait", "NQUEENS_ADMISSION_WAIT", "AdmissionWait"},
	{"answer-slots", "NQUEENS_ANSWER_SLOTS", "AnswerSlots"},
	{"migrate", "NQUEENS_MIGRATE", ""},
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
	fs := newFlagSet("serve")
	// The flags set the fields of cfg; their defaults are the server's
	// (server.DefaultConfig), which the help shows.
	def := server.DefaultConfig()
	cfg := def
	addr := fs.String("addr", defaultAddr, "listen on `HOST:PORT` ($NQUEENS_ADDR)")
	fs.IntVar(&cfg.Graph.MaxPageSize, "max-page-size", def.Graph.MaxPageSize, "largest first/last a page may ask for ($NQUEENS_MAX_PAGE_SIZE)")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", def.RequestTimeout, "time budget of each request, e.g. 10s ($NQUEENS_REQUEST_TIMEOUT)")
	corsOrigins := fs.String("cors-origins", strings.Join(def.CORSOrigins, ","), "comma-separated `ORIGINS` browsers may call from, e.g. https://example.com, or * ($NQUEENS_CORS_ORIGINS); none: same origin only")
	fs.IntVar(&cfg.Graph.CountMaxN, "count-max-n", def.Graph.CountMaxN, "largest N counted on the spot when the store has no counts; 0: none ($NQUEENS_COUNT_MAX_N)")
	fs.Int64Var(&cfg.Graph.PageCacheBytes, "page-cache-bytes", def.Graph.PageCacheBytes, "memory for the pages kept, in bytes (a quarter more for ranks); 0 turns the caches off ($NQUEENS_PAGE_CACHE_BYTES)")
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body-bytes", def.MaxBodyBytes, "largest request body ($NQUEENS_MAX_BODY_BYTES)")
	fs.IntVar(&cfg.ComplexityLimit, "complexity-limit", def.ComplexityLimit, "largest query complexity: a page's items count first/last times ($NQUEENS_COMPLEXITY_LIMIT)")
	fs.IntVar(&cfg.DepthLimit, "depth-limit", def.DepthLimit, "deepest nesting of fields in a query ($NQUEENS_DEPTH_LIMIT)")
	fs.DurationVar(&cfg.Graph.SolverBudget, "solver-budget", def.Graph.SolverBudget, "solver time one request may spend, all of its fields together ($NQUEENS_SOLVER_BUDGET)")
	fs.IntVar(&cfg.Graph.SolverSlots, "solver-slots", def.Graph.SolverSlots, "solver searches running at once for requests, shared fairly between clients; default: one per core ($NQUEENS_SOLVER_SLOTS)")
	fs.IntVar(&cfg.Graph.SolverQueuePerClient, "solver-queue-per-client", def.Graph.SolverQueuePerClient, "solver searches one client may have waiting or running; past it a field is refused at once with RATE_LIMITED ($NQUEENS_SOLVER_QUEUE_PER_CLIENT)")
	fs.IntVar(&cfg.MaxTokens, "max-tokens", def.MaxTokens, "most tokens (names, punctuation, values) in a GraphQL document ($NQUEENS_MAX_TOKENS)")
	fs.IntVar(&cfg.MaxFields, "max-fields", def.MaxFields, "most fields in a document once its fragments are spread in place ($NQUEENS_MAX_FIELDS)")
	fs.Int64Var(&cfg.QueryCacheBytes, "query-cache-bytes", def.QueryCacheBytes, "memory for parsed documents kept, in bytes ($NQUEENS_QUERY_CACHE_BYTES)")
	fs.Int64Var(&cfg.APQCacheBytes, "apq-cache-bytes", def.APQCacheBytes, "memory for persisted queries kept, in bytes ($NQUEENS_APQ_CACHE_BYTES)")
	fs.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", def.ReadHeaderTimeout, "time a client has to send a request's headers ($NQUEENS_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", def.ReadTimeout, "time a client has to send a whole request, body included ($NQUEENS_READ_TIMEOUT)")
	// --write-timeout's default follows --request-timeout
	// (server.WriteTimeoutFor), so it is set after parsing when not given.
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", 0, "time to answer a request, from the end of its headers, above --request-timeout; websockets are not cut; default: --request-timeout plus 10s ($NQUEENS_WRITE_TIMEOUT)")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", def.IdleTimeout, "time a keep-alive connection may wait for its next request ($NQUEENS_IDLE_TIMEOUT)")
	fs.IntVar(&cfg.MaxHeaderBytes, "max-header-bytes", def.MaxHeaderBytes, "largest request headers, in bytes ($NQUEENS_MAX_HEADER_BYTES)")
	fs.IntVar(&cfg.MaxConnections, "max-connections", def.MaxConnections, "connections open at once, websockets included, all clients together; past it the biggest holder's oldest idle one is closed to make room, or the new one is answered 503 ($NQUEENS_MAX_CONNECTIONS)")
	fs.IntVar(&cfg.MaxConnectionsPerClient, "max-connections-per-client", def.MaxConnectionsPerClient, "connections one client may have open, websockets included; past it its oldest idle one is closed to make room, or the new one is answered 429 ($NQUEENS_MAX_CONNECTIONS_PER_CLIENT)")
	fs.IntVar(&cfg.MaxIdleConnectionsPerClient, "max-idle-connections-per-client", def.MaxIdleConnectionsPerClient, "keep-alive connections one client may keep idle; past it its oldest idle ones are closed once idle for a second ($NQUEENS_MAX_IDLE_CONNECTIONS_PER_CLIENT)")
	// Requests in flight take at most their time budget, by default.
	shutdown := fs.Duration("shutdown-timeout", def.RequestTimeout, "how long requests in flight may finish on SIGINT/SIGTERM ($NQUEENS_SHUTDOWN_TIMEOUT)")
	migrate := fs.Bool("migrate", true, "apply the database migrations not applied yet on start; --migrate=false leaves the schema as it is ($NQUEENS_MIGRATE)")
	fs.StringVar(&cfg.Graph.AdminToken, "admin-token", def.Graph.AdminToken, "the bearer `TOKEN` mutations and /riverui need; none: they are refused. Prefer $NQUEENS_ADMIN_TOKEN: a flag shows in the process list ($NQUEENS_ADMIN_TOKEN)")
	fs.Float64Var(&cfg.RateLimit, "rate-limit", def.RateLimit, "requests a second each client (remote IP address) may make to /graphql; 0: no limit ($NQUEENS_RATE_LIMIT)")
	fs.IntVar(&cfg.RateBurst, "rate-burst", def.RateBurst, "requests a client may make at once, above --rate-limit ($NQUEENS_RATE_BURST)")
	fs.IntVar(&cfg.WSMaxConnections, "ws-max-connections", def.WSMaxConnections, "websockets open at once, all clients together; past it an upgrade is refused with 503 ($NQUEENS_WS_MAX_CONNECTIONS)")
	fs.IntVar(&cfg.WSMaxConnectionsPerClient, "ws-max-connections-per-client", def.WSMaxConnectionsPerClient, "websockets one client (address, IPv6 network) may have open at once; past it its upgrades are refused with 429 ($NQUEENS_WS_MAX_CONNECTIONS_PER_CLIENT)")
	fs.Int64Var(&cfg.WSMaxMessageBytes, "ws-max-message-bytes", def.WSMaxMessageBytes, "largest websocket message, checked on its frame headers; past it the socket is closed with 1009 ($NQUEENS_WS_MAX_MESSAGE_BYTES)")
	fs.DurationVar(&cfg.WSMessageTimeout, "ws-message-timeout", def.WSMessageTimeout, "time a websocket message may take to arrive whole once it has begun; past it the socket is closed with 1008 ($NQUEENS_WS_MESSAGE_TIMEOUT)")
	fs.IntVar(&cfg.WSMaxSubscriptions, "ws-max-subscriptions", def.WSMaxSubscriptions, "operations one websocket may run at once (subscriptions, queries not answered yet) ($NQUEENS_WS_MAX_SUBSCRIPTIONS)")
	fs.DurationVar(&cfg.WSInitTimeout, "ws-init-timeout", def.WSInitTimeout, "time a new websocket has to send connection_init; past it it is closed with 4408 ($NQUEENS_WS_INIT_TIMEOUT)")
	fs.DurationVar(&cfg.WSPingInterval, "ws-ping-interval", def.WSPingInterval, "how often the server pings each websocket ($NQUEENS_WS_PING_INTERVAL)")
	fs.DurationVar(&cfg.WSPongTimeout, "ws-pong-timeout", def.WSPongTimeout, "how long a websocket peer may take to answer a ping or take a message before it is dropped ($NQUEENS_WS_PONG_TIMEOUT)")
	fs.IntVar(&cfg.ExportMaxConcurrent, "export-max-concurrent", def.ExportMaxConcurrent, "downloads of /export/{n}.csv and .ndjson running at once, all clients together; past it they are refused with 503 ($NQUEENS_EXPORT_MAX_CONCURRENT)")
	fs.IntVar(&cfg.ExportMaxPerClient, "export-max-per-client", def.ExportMaxPerClient, "downloads of /export one client may run at once; past it they are refused with 429 ($NQUEENS_EXPORT_MAX_PER_CLIENT)")
	fs.IntVar(&cfg.ExportSolverMaxN, "export-solver-max-n", def.ExportSolverMaxN, "largest N /export enumerates with the solver when the store does not hold it; 0: none ($NQUEENS_EXPORT_SOLVER_MAX_N)")
	fs.IntVar(&cfg.ClientIPv6Prefix, "client-ipv6-prefix", def.ClientIPv6Prefix, "leading bits of an IPv6 address that name one client, for the per-client shares and the rate limit; 64: a /64 is one client ($NQUEENS_CLIENT_IPV6_PREFIX)")
	// The memory budget decides the in-flight budgets unless they are
	// given (memlimit; set after parsing).
	var memoryLimit, inflight, inflightPerClient byteSize
	fs.Var(&memoryLimit, "memory-limit", "the memory `BYTES` the process serves within (e.g. 512MiB): the Go runtime's soft limit is 90% of it (32 MiB less when that is less), requests in flight hold up to a quarter of it; default: GOMEMLIMIT, else the container's cgroup limit, else 512MiB ($NQUEENS_MEMORY_LIMIT)")
	fs.Var(&inflight, "inflight-bytes", "memory `BYTES` requests in flight may hold, all clients together (bodies, documents, expected answers); past it they wait, then are refused with 503; default: a quarter of --memory-limit ($NQUEENS_INFLIGHT_BYTES)")
	fs.Var(&inflightPerClient, "inflight-bytes-per-client", "memory `BYTES` one client's requests in flight may hold; past it they wait, then are refused with 429 (a request larger than it at once, 400); default: an eighth of --inflight-bytes ($NQUEENS_INFLIGHT_BYTES_PER_CLIENT)")
	fs.DurationVar(&cfg.AdmissionWait, "admission-wait", def.AdmissionWait, "how long a request waits for room in the in-flight memory, or for its turn to compute a heavy answer, before it is refused ($NQUEENS_ADMISSION_WAIT)")
	fs.IntVar(&cfg.AnswerSlots, "answer-slots", def.AnswerSlots, "heavy answers (priced at 1 MiB or more) computed at once, one per client at a time; the others wait their turn; default: half the cores ($NQUEENS_ANSWER_SLOTS)")
	workerFlags := addWorkerFlags(fs, true) // workers.go
	dbFlags := addDatabaseFlags(fs)
	logFlags := addLogFlags(fs, slog.LevelInfo)
	if err := setFromEnv(fs, c.lookupEnv); err != nil {
		return err
	}
	pos, err := parseArgs(fs, serveSynopsis+"\n\nThe database: "+databaseEnvUsage+".\nEach flag's environment twin ($…) sets its default; the flag given wins.", args, c.stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %s", strings.Join(pos, " "))
	}
	for o := range strings.SplitSeq(*corsOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.CORSOrigins = append(cfg.CORSOrigins, o)
		}
	}
	// The settings that follow others unless given.
	if !isSet(fs, "write-timeout") {
		cfg.WriteTimeout = server.WriteTimeoutFor(cfg.RequestTimeout)
	} else if cfg.WriteTimeout > 0 && cfg.WriteTimeout <= cfg.RequestTimeout {
		return usagef("%s (%s) must be longer than %s (%s), or answers would be cut before their time budget ends", setting("write-timeout"), cfg.WriteTimeout, setting("request-timeout"), cfg.RequestTimeout)
	}
	// A page size smaller than the default page makes that page smaller.
	cfg.Graph.DefaultPageSize = min(cfg.Graph.DefaultPageSize, cfg.Graph.MaxPageSize)
	// A total smaller than a default share makes that share smaller.
	if !isSet(fs, "max-connections-per-client") {
		cfg.MaxConnectionsPerClient = min(cfg.MaxConnectionsPerClient, cfg.MaxConnections)
	}
	if !isSet(fs, "max-idle-connections-per-client") {
		cfg.MaxIdleConnectionsPerClient = min(cfg.MaxIdleConnectionsPerClient, cfg.MaxConnectionsPerClient)
	}
	// The memory budget: the setting, GOMEMLIMIT, the container's limit
	// or the default; the in-flight budgets follow it unless given.
	budget, err := memlimit.Decide(memlimit.Inputs{Setting: int64(memoryLimit), SettingName: setting("memory-limit"),
		LookupEnv: c.lookupEnv, Cgroup: automemlimit.FromCgroup, Default: server.DefaultMemoryBudget})
	if err != nil {
		return usagef("%v", err)
	}
	cfg.InflightBytes = server.DefaultInflightBytes(budget.Bytes)
	if isSet(fs, "inflight-bytes") {
		cfg.InflightBytes = int64(inflight)
	}
	cfg.InflightBytesPerClient = cfg.InflightBytes / 8
	if isSet(fs, "inflight-bytes-per-client") {
		cfg.InflightBytesPerClient = int64(inflightPerClient)
	}
	if err := cfg.Check(); err != nil {
		return settingError(err, serveEnv)
	}
	if *shutdown < 0 {
		return usagef("%s must not be negative, got %s", setting("shutdown-timeout"), *shutdown)
	}
	if err := workerFlags.check(); err != nil {
		return err
	}
	db, err := dbFlags.database()
	if err != nil {
		return err
	}

	logger := logFlags.logger(c.stderr)
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
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()

	// The store: Postgres or the SQLite file, migrated unless told not to.
	// It comes up in the background, workers and all (internal/service):
	// the server answers at once, UNAVAILABLE for what needs the database
	// until it is reachable, and /readyz says when it is.
	// The boards this process's workers start, finish or fail: their
	// subscribers hear of it at once (the server exists once the store's
	// startup is set up, so the hook reads it late).
	var served atomic.Pointer[server.Server]
	engineCfg := workerFlags.engineConfig(logger)
	engineCfg.OnBoardChanged = func(n int) {
		if srv := served.Load(); srv != nil {
			srv.Resolver().PokeBoard(n)
		}
	}
	up := service.NewStartup(service.Config{Database: db, Migrate: *migrate, Workers: engineCfg,
		Precompute: workerFlags.precompute, Logger: logger})
	defer up.Close()
	// The metrics at /metrics (internal/metrics): the API's store calls
	// are timed, the database's boards and jobs read at each scrape.
	m := metrics.New()
	stored := storemetrics.New(up.Store(), m.Registerer())

	cfg.Graph.Boards, cfg.Graph.Stored, cfg.Graph.Plans = stored, stored, up
	cfg.ExportStore = stored
	// The precompute workers, over the same database: they fill the
	// store, the precompute mutation asks them for boards, and River UI
	// shows their jobs at /riverui.
	cfg.Graph.Precompute = up
	cfg.Graph.OnCacheLookup = m.CacheLookup
	cfg.OnOperation = m.Operation
	cfg.Logger = logger

	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	served.Store(srv)
	up.Mount(srv, cfg.Graph.AdminToken) // /readyz and /riverui
	m.WatchDatabase(up.Store(), up, metricsDatabaseTimeout, logger)
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
	logger.Info("serving", "addr", ln.Addr().String(), "database", db.String(), "migrate", *migrate,
		"page_cache", cfg.Graph.PageCacheBytes, "admin_token", cfg.Graph.AdminToken != "", "precompute", cfg.Graph.Precompute != nil)

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
	logger.Info("shutting down", "timeout", shutdown.String())
	srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), *shutdown)
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
