package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/graphstore"
	"github.com/nqueens/nqueens/migrations"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/web"
)

const serveSynopsis = "[--addr HOST:PORT] [--max-page-size K] [--request-timeout D] [--cors-origins LIST] …"

// serveFlag is a flag of serve with its environment twin: the variable
// sets the default, the flag given on the command line wins.
type serveFlag struct{ name, env string }

var serveEnv = []serveFlag{
	{"addr", "NQUEENS_ADDR"},
	{"max-page-size", "NQUEENS_MAX_PAGE_SIZE"},
	{"request-timeout", "NQUEENS_REQUEST_TIMEOUT"},
	{"cors-origins", "NQUEENS_CORS_ORIGINS"},
	{"count-max-n", "NQUEENS_COUNT_MAX_N"},
	{"page-cache", "NQUEENS_PAGE_CACHE"},
	{"max-body-bytes", "NQUEENS_MAX_BODY_BYTES"},
	{"complexity-limit", "NQUEENS_COMPLEXITY_LIMIT"},
	{"depth-limit", "NQUEENS_DEPTH_LIMIT"},
	{"shutdown-timeout", "NQUEENS_SHUTDOWN_TIMEOUT"},
	{"migrate", "NQUEENS_MIGRATE"},
}

// runServe opens the database (DATABASE_URL, else the SQLite file),
// applies its migrations, starts the GraphQL server over it and runs until
// ctx ends (SIGINT or SIGTERM), then shuts down gracefully: it stops
// accepting, ends the subscriptions, lets the requests in flight finish
// (bounded by --shutdown-timeout), closes the database and exits 0.
//
// Boards the store holds DONE with their solutions page from the store;
// every other board pages from the solver, with the same cursors.
func runServe(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlagSet("serve")
	addr := fs.String("addr", ":8080", "listen on `HOST:PORT` ($NQUEENS_ADDR)")
	maxPage := fs.Int("max-page-size", 1000, "largest first/last a page may ask for ($NQUEENS_MAX_PAGE_SIZE)")
	timeout := fs.Duration("request-timeout", 10*time.Second, "time budget of each request, e.g. 10s ($NQUEENS_REQUEST_TIMEOUT)")
	corsOrigins := fs.String("cors-origins", "", "comma-separated `ORIGINS` browsers may call from, e.g. https://example.com, or * ($NQUEENS_CORS_ORIGINS); none: same origin only")
	countMaxN := fs.Int("count-max-n", 15, "largest N counted on the spot when the store has no counts ($NQUEENS_COUNT_MAX_N)")
	pageCache := fs.Int("page-cache", 10000, "pages kept in memory; 0 turns the cache off ($NQUEENS_PAGE_CACHE)")
	maxBody := fs.Int64("max-body-bytes", 1<<20, "largest request body ($NQUEENS_MAX_BODY_BYTES)")
	complexity := fs.Int("complexity-limit", 20000, "largest query complexity: a page's items count first/last times ($NQUEENS_COMPLEXITY_LIMIT)")
	depth := fs.Int("depth-limit", 10, "deepest nesting of fields in a query ($NQUEENS_DEPTH_LIMIT)")
	shutdown := fs.Duration("shutdown-timeout", 10*time.Second, "how long requests in flight may finish on SIGINT/SIGTERM ($NQUEENS_SHUTDOWN_TIMEOUT)")
	migrate := fs.Bool("migrate", true, "apply the database migrations not applied yet on start; --migrate=false leaves the schema as it is ($NQUEENS_MIGRATE)")
	workerFlags, err := addWorkerFlags(fs, true) // workers.go
	if err != nil {
		return err
	}
	for _, f := range serveEnv {
		if v, ok := os.LookupEnv(f.env); ok {
			if err := fs.Set(f.name, v); err != nil {
				return usagef("%s=%q: %v", f.env, v, err)
			}
		}
	}
	pos, err := parseArgs(fs, serveSynopsis+"\n\nThe database: "+databaseEnvUsage+".\nThe admin token that mutations need is read from NQUEENS_ADMIN_TOKEN only\n(unset: mutations are refused).", args, stdout)
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
		{"--max-page-size", int64(*maxPage), 1},
		{"--count-max-n", int64(*countMaxN), 0},
		{"--page-cache", int64(*pageCache), 0},
		{"--max-body-bytes", *maxBody, 1024},
		{"--complexity-limit", int64(*complexity), 1},
		{"--depth-limit", int64(*depth), 1},
	} {
		if c.v < c.min {
			return usagef("%s must be at least %d, got %d", c.name, c.min, c.v)
		}
	}
	if *maxPage >= store.MaxPageLimit {
		return usagef("--max-page-size must be below %d (a page asks the store for one more), got %d", store.MaxPageLimit, *maxPage)
	}
	if *timeout <= 0 || *shutdown < 0 {
		return usagef("--request-timeout must be positive and --shutdown-timeout not negative")
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

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
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
	db := databaseFromEnv()
	st, err := openStore(ctx, db, !*migrate)
	if err != nil {
		return fmt.Errorf("opening the database (%s): %w", db, err)
	}
	defer st.Close()
	stored := graphstore.New(st)

	cfg := server.Config{
		Graph: graph.Options{
			Boards:        stored,
			Stored:        stored,
			AdminToken:    os.Getenv("NQUEENS_ADMIN_TOKEN"),
			MaxPageSize:   *maxPage,
			CountMaxN:     *countMaxN,
			PageCacheSize: *pageCache,
			Logger:        logger,
		},
		RequestTimeout:  *timeout,
		MaxBodyBytes:    *maxBody,
		ComplexityLimit: *complexity,
		DepthLimit:      *depth,
		CORSOrigins:     origins,
		Logger:          logger,
	}
	if cfg.Graph.CountMaxN == 0 {
		cfg.Graph.CountMaxN = -1 // 0 on the command line: never count on the spot
	}

	// The precompute workers, over the same database (workers.go): they
	// fill the store, the precompute mutation asks them for boards, and
	// River UI shows their jobs at /riverui.
	workers, err := startWorkers(ctx, st, workerFlags, *migrate, logger)
	if err != nil {
		return err
	}
	defer workers.Stop()
	cfg.Graph.Precompute = workers.Precomputer()

	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	if err := workers.MountRiverUI(ctx, srv, cfg.Graph.AdminToken); err != nil {
		return err
	}
	srv.Handle("/", web.Handler()) // the board viewer

	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "nqueens: serving GraphQL on http://%s/graphql (playground: /playground)\n", ln.Addr())
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	logger.Info("serving", "addr", ln.Addr().String(), "database", db.String(), "migrate", *migrate,
		"page_cache", *pageCache, "admin_token", cfg.Graph.AdminToken != "", "precompute", cfg.Graph.Precompute != nil)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
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

// openStore opens the store over db for serve, applying the migrations
// not applied yet unless skipMigrations.
func openStore(ctx context.Context, db database, skipMigrations bool) (store.Store, error) {
	if db.dialect == migrations.Postgres {
		s, err := postgres.Open(ctx, postgres.Config{URL: genericPlans(db.url), SkipMigrations: skipMigrations})
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return s, nil
	}
	s, err := sqlite.Open(ctx, sqlite.Config{Path: db.path, SkipMigrations: skipMigrations})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// genericPlans sets plan_cache_mode=force_generic_plan on the connections
// of a Postgres URL (or key=value string) that does not set it already.
//
// The store's queries are prepared once per connection and run with new
// cursors each time. Left to itself ("auto"), Postgres plans a page query
// anew at every execution: its generic plan (placement > $2 of an unknown
// $2) looks costlier than the custom ones, so it never switches, and the
// planning costs more than the index scan it plans. The generic plan is
// the same index scan. Measured with pgbench on N=16 (docs/PERFORMANCE.md,
// "GraphQL API"): a third more pages per second from the same CPU.
func genericPlans(dsn string) string {
	const param = "plan_cache_mode"
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn // Open reports it
		}
		q := u.Query()
		if q.Has(param) {
			return dsn
		}
		q.Set(param, "force_generic_plan")
		u.RawQuery = q.Encode()
		return u.String()
	}
	if strings.Contains(dsn, param) {
		return dsn
	}
	return strings.TrimSpace(dsn) + " " + param + "=force_generic_plan"
}
