package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/metrics"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/internal/storemetrics"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/web"
)

const serveSynopsis = "[--addr HOST:PORT] [--max-page-size K] [--request-timeout D] [--cors-origins LIST] …"

// metricsDatabaseTimeout bounds the database reads of one /metrics scrape.
const metricsDatabaseTimeout = 2 * time.Second

// serveEnv are the environment twins of serve's own flags (settings.go).
var serveEnv = []envFlag{
	{"addr", "NQUEENS_ADDR"},
	{"admin-token", "NQUEENS_ADMIN_TOKEN"},
	{"rate-limit", "NQUEENS_RATE_LIMIT"},
	{"rate-burst", "NQUEENS_RATE_BURST"},
	{"max-page-size", "NQUEENS_MAX_PAGE_SIZE"},
	{"request-timeout", "NQUEENS_REQUEST_TIMEOUT"},
	{"cors-origins", "NQUEENS_CORS_ORIGINS"},
	{"count-max-n", "NQUEENS_COUNT_MAX_N"},
	{"page-cache-bytes", "NQUEENS_PAGE_CACHE_BYTES"},
	{"max-body-bytes", "NQUEENS_MAX_BODY_BYTES"},
	{"complexity-limit", "NQUEENS_COMPLEXITY_LIMIT"},
	{"depth-limit", "NQUEENS_DEPTH_LIMIT"},
	{"solver-budget", "NQUEENS_SOLVER_BUDGET"},
	{"solver-slots", "NQUEENS_SOLVER_SLOTS"},
	{"max-tokens", "NQUEENS_MAX_TOKENS"},
	{"max-fields", "NQUEENS_MAX_FIELDS"},
	{"query-cache-bytes", "NQUEENS_QUERY_CACHE_BYTES"},
	{"apq-cache-bytes", "NQUEENS_APQ_CACHE_BYTES"},
	{"read-header-timeout", "NQUEENS_READ_HEADER_TIMEOUT"},
	{"read-timeout", "NQUEENS_READ_TIMEOUT"},
	{"write-timeout", "NQUEENS_WRITE_TIMEOUT"},
	{"idle-timeout", "NQUEENS_IDLE_TIMEOUT"},
	{"max-header-bytes", "NQUEENS_MAX_HEADER_BYTES"},
	{"max-connections", "NQUEENS_MAX_CONNECTIONS"},
	{"shutdown-timeout", "NQUEENS_SHUTDOWN_TIMEOUT"},
	{"ws-max-connections", "NQUEENS_WS_MAX_CONNECTIONS"},
	{"ws-max-subscriptions", "NQUEENS_WS_MAX_SUBSCRIPTIONS"},
	{"ws-init-timeout", "NQUEENS_WS_INIT_TIMEOUT"},
	{"ws-ping-interval", "NQUEENS_WS_PING_INTERVAL"},
	{"ws-pong-timeout", "NQUEENS_WS_PONG_TIMEOUT"},
	{"migrate", "NQUEENS_MIGRATE"},
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
	addr := fs.String("addr", defaultAddr, "listen on `HOST:PORT` ($NQUEENS_ADDR)")
	maxPage := fs.Int("max-page-size", 1000, "largest first/last a page may ask for ($NQUEENS_MAX_PAGE_SIZE)")
	timeout := fs.Duration("request-timeout", 10*time.Second, "time budget of each request, e.g. 10s ($NQUEENS_REQUEST_TIMEOUT)")
	corsOrigins := fs.String("cors-origins", "", "comma-separated `ORIGINS` browsers may call from, e.g. https://example.com, or * ($NQUEENS_CORS_ORIGINS); none: same origin only")
	countMaxN := fs.Int("count-max-n", 15, "largest N counted on the spot when the store has no counts ($NQUEENS_COUNT_MAX_N)")
	pageCache := fs.Int64("page-cache-bytes", 64<<20, "memory for the pages kept, in bytes (a quarter more for ranks); 0 turns the caches off ($NQUEENS_PAGE_CACHE_BYTES)")
	maxBody := fs.Int64("max-body-bytes", 1<<20, "largest request body ($NQUEENS_MAX_BODY_BYTES)")
	complexity := fs.Int("complexity-limit", 20000, "largest query complexity: a page's items count first/last times ($NQUEENS_COMPLEXITY_LIMIT)")
	depth := fs.Int("depth-limit", 10, "deepest nesting of fields in a query ($NQUEENS_DEPTH_LIMIT)")
	solverBudget := fs.Duration("solver-budget", 5*time.Second, "solver time one request may spend, all of its fields together ($NQUEENS_SOLVER_BUDGET)")
	solverSlots := fs.Int("solver-slots", runtime.GOMAXPROCS(0), "solver searches running at once for requests, shared fairly between clients; default: one per core ($NQUEENS_SOLVER_SLOTS)")
	maxTokens := fs.Int("max-tokens", 10000, "most tokens (names, punctuation, values) in a GraphQL document ($NQUEENS_MAX_TOKENS)")
	maxFields := fs.Int("max-fields", 2000, "most fields in a document once its fragments are spread in place ($NQUEENS_MAX_FIELDS)")
	queryCache := fs.Int64("query-cache-bytes", 24<<20, "memory for parsed documents kept, in bytes ($NQUEENS_QUERY_CACHE_BYTES)")
	apqCache := fs.Int64("apq-cache-bytes", 8<<20, "memory for persisted queries kept, in bytes ($NQUEENS_APQ_CACHE_BYTES)")
	readHeaderTimeout := fs.Duration("read-header-timeout", 5*time.Second, "time a client has to send a request's headers ($NQUEENS_READ_HEADER_TIMEOUT)")
	readTimeout := fs.Duration("read-timeout", 10*time.Second, "time a client has to send a whole request, body included ($NQUEENS_READ_TIMEOUT)")
	writeTimeout := fs.Duration("write-timeout", 0, "time to answer a request, from the end of its headers, above --request-timeout; websockets are not cut; default: --request-timeout plus 10s ($NQUEENS_WRITE_TIMEOUT)")
	idleTimeout := fs.Duration("idle-timeout", time.Minute, "time a keep-alive connection may wait for its next request ($NQUEENS_IDLE_TIMEOUT)")
	maxHeader := fs.Int("max-header-bytes", 32<<10, "largest request headers, in bytes ($NQUEENS_MAX_HEADER_BYTES)")
	maxConns := fs.Int("max-connections", 2048, "connections open at once, websockets included; past it new ones wait to be accepted ($NQUEENS_MAX_CONNECTIONS)")
	shutdown := fs.Duration("shutdown-timeout", 10*time.Second, "how long requests in flight may finish on SIGINT/SIGTERM ($NQUEENS_SHUTDOWN_TIMEOUT)")
	migrate := fs.Bool("migrate", true, "apply the database migrations not applied yet on start; --migrate=false leaves the schema as it is ($NQUEENS_MIGRATE)")
	adminToken := fs.String("admin-token", "", "the bearer `TOKEN` mutations and /riverui need; none: they are refused. Prefer $NQUEENS_ADMIN_TOKEN: a flag shows in the process list ($NQUEENS_ADMIN_TOKEN)")
	rateLimit := fs.Float64("rate-limit", 0, "requests a second each client (remote IP address) may make to /graphql; 0: no limit ($NQUEENS_RATE_LIMIT)")
	rateBurst := fs.Int("rate-burst", 20, "requests a client may make at once, above --rate-limit ($NQUEENS_RATE_BURST)")
	wsMaxConns := fs.Int("ws-max-connections", 500, "websockets open at once; past it an upgrade is refused with 503 ($NQUEENS_WS_MAX_CONNECTIONS)")
	wsMaxSubs := fs.Int("ws-max-subscriptions", 10, "operations one websocket may run at once (subscriptions, queries not answered yet) ($NQUEENS_WS_MAX_SUBSCRIPTIONS)")
	wsInit := fs.Duration("ws-init-timeout", 5*time.Second, "time a new websocket has to send connection_init; past it it is closed with 4408 ($NQUEENS_WS_INIT_TIMEOUT)")
	wsPing := fs.Duration("ws-ping-interval", 15*time.Second, "how often the server pings each websocket ($NQUEENS_WS_PING_INTERVAL)")
	wsPong := fs.Duration("ws-pong-timeout", 10*time.Second, "how long a websocket peer may take to answer a ping or take a message before it is dropped ($NQUEENS_WS_PONG_TIMEOUT)")
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
	for _, c := range []struct {
		name string
		v    int64
		min  int64
	}{
		{"max-page-size", int64(*maxPage), 1},
		{"count-max-n", int64(*countMaxN), 0},
		{"page-cache-bytes", *pageCache, 0},
		{"max-body-bytes", *maxBody, 1024},
		{"complexity-limit", int64(*complexity), 1},
		{"depth-limit", int64(*depth), 1},
		{"solver-slots", int64(*solverSlots), 1},
		{"max-tokens", int64(*maxTokens), 100},
		{"max-fields", int64(*maxFields), 10},
		{"query-cache-bytes", *queryCache, 1 << 20},
		{"apq-cache-bytes", *apqCache, 1 << 20},
		{"max-header-bytes", int64(*maxHeader), 4096},
		{"max-connections", int64(*maxConns), 16},
		{"rate-burst", int64(*rateBurst), 1},
		{"ws-max-connections", int64(*wsMaxConns), 1},
		{"ws-max-subscriptions", int64(*wsMaxSubs), 1},
	} {
		if c.v < c.min {
			return usagef("%s must be at least %d, got %d", setting(c.name), c.min, c.v)
		}
	}
	if *maxPage >= store.MaxPageLimit {
		return usagef("%s must be below %d (a page asks the store for one more), got %d", setting("max-page-size"), store.MaxPageLimit, *maxPage)
	}
	if *timeout <= 0 {
		return usagef("%s must be positive, got %s", setting("request-timeout"), *timeout)
	}
	if !isSet(fs, "write-timeout") {
		*writeTimeout = *timeout + 10*time.Second
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"read-header-timeout", *readHeaderTimeout},
		{"read-timeout", *readTimeout},
		{"write-timeout", *writeTimeout},
		{"idle-timeout", *idleTimeout},
		{"solver-budget", *solverBudget},
		{"ws-init-timeout", *wsInit},
		{"ws-ping-interval", *wsPing},
		{"ws-pong-timeout", *wsPong},
	} {
		if d.v <= 0 {
			return usagef("%s must be positive, got %s", setting(d.name), d.v)
		}
	}
	if *writeTimeout <= *timeout {
		return usagef("%s (%s) must be longer than %s (%s), or answers would be cut before their time budget ends", setting("write-timeout"), *writeTimeout, setting("request-timeout"), *timeout)
	}
	if *shutdown < 0 {
		return usagef("%s must not be negative, got %s", setting("shutdown-timeout"), *shutdown)
	}
	if *rateLimit < 0 || math.IsNaN(*rateLimit) || math.IsInf(*rateLimit, 0) {
		return usagef("%s must be a number of requests a second, 0 for no limit, got %g", setting("rate-limit"), *rateLimit)
	}
	if err := workerFlags.check(); err != nil {
		return err
	}
	var origins []string
	for _, o := range strings.Split(*corsOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}

	logger := logFlags.logger(c.stderr)
	// A server's heap is small (tens of MB) and its garbage short-lived
	// (a page is many small objects): collecting at 5× the live heap
	// instead of Go's default 2× costs tens of MB and saves a fifth of the
	// CPU under load (docs/PERFORMANCE.md, "GraphQL API"). GOGC, when set,
	// decides instead.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// Listen first: a bad address fails before the database is touched.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()

	// The store: Postgres or the SQLite file, migrated unless told not to.
	db := dbFlags.database()
	// It comes up in the background, workers and all (internal/service):
	// the server answers at once, UNAVAILABLE for what needs the database
	// until it is reachable, and /readyz says when it is.
	up := service.NewStartup(service.Config{Database: db, Migrate: *migrate, Workers: workerFlags.config(logger),
		Precompute: workerFlags.precompute, Logger: logger})
	defer up.Close()
	// The metrics at /metrics (internal/metrics): the API's store calls
	// are timed, the database's boards and jobs read at each scrape.
	m := metrics.New()
	stored := storemetrics.New(up.Store(), m.Registerer())

	cfg := server.Config{
		Graph: graph.Options{
			Boards:         stored,
			Stored:         stored,
			Plans:          up,
			AdminToken:     *adminToken,
			MaxPageSize:    *maxPage,
			CountMaxN:      *countMaxN,
			PageCacheBytes: *pageCache,
			SolverBudget:   *solverBudget,
			SolverSlots:    *solverSlots,
			OnCacheLookup:  m.CacheLookup,
			Logger:         logger,
		},
		RequestTimeout:    *timeout,
		MaxBodyBytes:      *maxBody,
		ComplexityLimit:   *complexity,
		DepthLimit:        *depth,
		MaxTokens:         *maxTokens,
		MaxFields:         *maxFields,
		QueryCacheBytes:   *queryCache,
		APQCacheBytes:     *apqCache,
		ReadHeaderTimeout: *readHeaderTimeout,
		ReadTimeout:       *readTimeout,
		WriteTimeout:      *writeTimeout,
		IdleTimeout:       *idleTimeout,
		MaxHeaderBytes:    *maxHeader,
		MaxConnections:    *maxConns,
		CORSOrigins:       origins,
		RateLimit:         *rateLimit,
		RateBurst:         *rateBurst,
		OnOperation:       m.Operation,
		Logger:            logger,

		WSMaxConnections:   *wsMaxConns,
		WSMaxSubscriptions: *wsMaxSubs,
		WSInitTimeout:      *wsInit,
		WSPingInterval:     *wsPing,
		WSPongTimeout:      *wsPong,
	}
	if cfg.Graph.CountMaxN == 0 {
		cfg.Graph.CountMaxN = -1 // 0 on the command line: never count on the spot
	}

	// The precompute workers, over the same database: they fill the store, the precompute mutation asks them for boards, and
	// River UI shows their jobs at /riverui.
	cfg.Graph.Precompute = up

	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	up.Mount(srv, cfg.Graph.AdminToken) // /readyz and /riverui
	m.WatchDatabase(up.Store(), up, metricsDatabaseTimeout, logger)
	// No token for the metrics: operators keep them on their network.
	srv.Handle("GET /metrics", m.Handler())
	srv.Handle("/", web.Handler()) // the board viewer

	hs := srv.HTTPServer()
	fmt.Fprintf(c.stdout, "nqueens: serving GraphQL on http://%s/graphql (playground: /playground)\n", ln.Addr())
	if f, ok := c.stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	logger.Info("serving", "addr", ln.Addr().String(), "database", db.String(), "migrate", *migrate,
		"page_cache", *pageCache, "admin_token", cfg.Graph.AdminToken != "", "precompute", cfg.Graph.Precompute != nil)

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
