package server_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/server"
)

// TestDefaultConfigIsTaken: New takes DefaultConfig as it is, and its
// WriteTimeout is the one that goes with its RequestTimeout.
func TestDefaultConfigIsTaken(t *testing.T) {
	t.Parallel()
	def := server.DefaultConfig()
	srv, err := server.New(def)
	if err != nil {
		t.Fatalf("New(DefaultConfig()): %v", err)
	}
	defer srv.Close()
	if def.WriteTimeout != server.WriteTimeoutFor(def.RequestTimeout) || def.WriteTimeout <= def.RequestTimeout {
		t.Errorf("default WriteTimeout %s with RequestTimeout %s", def.WriteTimeout, def.RequestTimeout)
	}
	if hs := srv.HTTPServer(); hs.WriteTimeout != def.WriteTimeout || hs.ReadHeaderTimeout != def.ReadHeaderTimeout {
		t.Errorf("http.Server timeouts %s, %s; want the config's %s, %s", hs.WriteTimeout, hs.ReadHeaderTimeout, def.WriteTimeout, def.ReadHeaderTimeout)
	}
}

// TestConfigRefused: a value New cannot work with is refused, with an
// error that names the field (a field of the resolvers' options as
// Graph.…) and says what is allowed; it is never replaced by a default.
func TestConfigRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		change func(*server.Config)
		field  string
		says   string
	}{
		{func(c *server.Config) { c.RequestTimeout = 0 }, "RequestTimeout", "must be positive, got 0s"},
		{func(c *server.Config) { c.MaxBodyBytes = 0 }, "MaxBodyBytes", "must be at least 1024, got 0"},
		{func(c *server.Config) { c.ReadHeaderTimeout = 0 }, "ReadHeaderTimeout", "must be positive, got 0s"},
		{func(c *server.Config) { c.WriteTimeout = 0 }, "WriteTimeout", "must be positive, got 0s"},
		{func(c *server.Config) { c.RequestTimeout = time.Minute }, "WriteTimeout", "(20s) must be longer than RequestTimeout (1m0s)"},
		{func(c *server.Config) { c.MaxConnections = 0 }, "MaxConnections", "must be at least 16, got 0"},
		{func(c *server.Config) { c.MaxConnectionsPerClient = 4096 }, "MaxConnectionsPerClient", "must be from 1 to 2048 (at most MaxConnections), got 4096"},
		{func(c *server.Config) { c.MaxIdleConnectionsPerClient = 65 }, "MaxIdleConnectionsPerClient", "must be from 0 to 64"},
		{func(c *server.Config) { c.ExportMaxPerClient = 3 }, "ExportMaxPerClient", "must be from 1 to 2 (at most ExportMaxConcurrent), got 3"},
		{func(c *server.Config) { c.Graph.SolverQueuePerClient = 0 }, "Graph.SolverQueuePerClient", "must be at least 1, got 0"},
		{func(c *server.Config) { c.MaxTokens = 0 }, "MaxTokens", "must be at least 100, got 0"},
		{func(c *server.Config) { c.QueryCacheBytes = 0 }, "QueryCacheBytes", "must be at least 1048576, got 0"},
		{func(c *server.Config) { c.CacheMaxAge = -time.Second }, "CacheMaxAge", "must not be negative, got -1s"},
		{func(c *server.Config) { c.RateLimit = math.NaN() }, "RateLimit", "must be a number of requests a second, 0 for no limit, got NaN"},
		{func(c *server.Config) { c.RateBurst = 0 }, "RateBurst", "must be at least 1, got 0"},
		{func(c *server.Config) { c.WSMaxSubscriptions = 0 }, "WSMaxSubscriptions", "must be at least 1, got 0"},
		{func(c *server.Config) { c.WSPongTimeout = 0 }, "WSPongTimeout", "must be positive, got 0s"},
		{func(c *server.Config) { c.WSMaxConnectionsPerClient = 0 }, "WSMaxConnectionsPerClient", "must be at least 1, got 0"},
		{func(c *server.Config) { c.WSMaxMessageBytes = 100 }, "WSMaxMessageBytes", "must be at least 1024, got 100"},
		{func(c *server.Config) { c.WSMessageTimeout = 0 }, "WSMessageTimeout", "must be positive, got 0s"},
		{func(c *server.Config) { c.SSEMaxStreams = 0 }, "SSEMaxStreams", "must be at least 1, got 0"},
		{func(c *server.Config) { c.SSEMaxStreamsPerClient = 0 }, "SSEMaxStreamsPerClient", "must be at least 1, got 0"},
		{func(c *server.Config) { c.SSEKeepAlive = 0 }, "SSEKeepAlive", "must be positive, got 0s"},
		{func(c *server.Config) { c.SSEWriteTimeout = -time.Second }, "SSEWriteTimeout", "must be positive, got -1s"},
		{func(c *server.Config) { c.SSEMaxDuration = 0 }, "SSEMaxDuration", "must be positive, got 0s"},
		{func(c *server.Config) { c.Logger = nil }, "Logger", "is nil; give a logger"},
		{func(c *server.Config) { c.Graph.MaxPageSize = 0 }, "Graph.MaxPageSize", "must be at least 1, got 0"},
		{func(c *server.Config) { c.Graph.SolverBudget = 0 }, "Graph.SolverBudget", "must be positive, got 0s"},
	} {
		cfg := server.DefaultConfig()
		tt.change(&cfg)
		_, err := server.New(cfg)
		var e *configcheck.Error
		if !errors.As(err, &e) || e.Field != tt.field || !strings.Contains(err.Error(), "server: "+tt.field+" "+tt.says) {
			t.Errorf("New with a bad %s: %v; want an error naming it and saying %q", tt.field, err, tt.says)
		}
	}
}

// TestZeroConfigMeansZero: the zeros New takes mean zero. With CacheMaxAge
// 0 an answer that never changes may be kept for 0 seconds; with RateLimit
// 0 (the default) a client's requests are not limited, however many come
// at once past RateBurst.
func TestZeroConfigMeansZero(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.CacheMaxAge, c.RateLimit, c.RateBurst = 0, 0, 1 })
	solution := apitest.Request{Query: `{ solution(placement: [1, 3, 0, 2]) { chess } }`}
	if r := b.Get(t, solution); r.Status != 200 || r.Header.Get("Cache-Control") != "public, max-age=0" {
		t.Errorf("GET of an answer that never changes, CacheMaxAge 0: %d, Cache-Control %q; want public, max-age=0", r.Status, r.Header.Get("Cache-Control"))
	}
	for i := range 5 {
		if r := b.Post(t, solution); r.Status != 200 {
			t.Fatalf("request %d at once with RateLimit 0 and RateBurst 1: %d %s; want no limit", i+1, r.Status, r.Raw)
		}
	}
}
