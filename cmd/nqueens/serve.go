package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/server"
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
}

// runServe starts the GraphQL server and runs until ctx ends (SIGINT or
// SIGTERM), then shuts down gracefully: it stops accepting, ends the
// subscriptions, lets the requests in flight finish (bounded by
// --shutdown-timeout) and exits 0.
//
// The store and the precompute workers are not wired yet: the server pages
// every board from the solver, and the precompute mutation answers
// UNAVAILABLE. They plug in through server.Config.Graph (Boards, Stored,
// Precompute) below.
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
	for _, f := range serveEnv {
		if v, ok := os.LookupEnv(f.env); ok {
			if err := fs.Set(f.name, v); err != nil {
				return usagef("%s=%q: %v", f.env, v, err)
			}
		}
	}
	pos, err := parseArgs(fs, serveSynopsis+"\n\nThe admin token that mutations need is read from NQUEENS_ADMIN_TOKEN only\n(unset: mutations are refused).", args, stdout)
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
	if *timeout <= 0 || *shutdown < 0 {
		return usagef("--request-timeout must be positive and --shutdown-timeout not negative")
	}
	var origins []string
	for _, o := range strings.Split(*corsOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := server.Config{
		Graph: graph.Options{
			// The store (Boards, Stored) and the precompute engine
			// (Precompute) plug in here.
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
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "nqueens: serving GraphQL on http://%s/graphql (playground: /playground)\n", ln.Addr())
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	logger.Info("serving", "addr", ln.Addr().String(), "admin_token", cfg.Graph.AdminToken != "", "store", false)

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
