// Package server builds the HTTP side of the service: the GraphQL endpoint
// (POST, GET, websocket and Server-Sent Events at /graphql), the GraphiQL playground, /healthz,
// the /readyz handler (ready.go), and the limits, caching and CORS around
// them. The resolvers and their
// dependencies come from package graph; cmd/nqueens wires the two.
package server

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/rs/cors"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/configcheck"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/internal/solverpool"
	"github.com/nqueens/nqueens/internal/tracing"
	"github.com/nqueens/nqueens/web"
)

// Config configures the HTTP layer. Start from DefaultConfig: New takes
// every field as it is (a zero means zero: no rate limit, no CORS) and
// refuses a value it cannot work with.
type Config struct {
	// Graph configures the resolvers: store, precompute engine, admin
	// token, page sizes, caches. Their logger is Logger.
	Graph graph.Options
	// RequestTimeout bounds each HTTP request (not subscriptions, over a
	// websocket or an event stream); resolvers see it as their context's
	// deadline.
	RequestTimeout time.Duration
	// MaxBodyBytes bounds a POST body (at least 1 KiB); larger is 413.
	// Websocket messages have their own bound, WSMaxMessageBytes.
	MaxBodyBytes int64
	// ReadHeaderTimeout bounds the reading of a request's headers,
	// ReadTimeout that of the whole request, body included: a client that
	// stalls is disconnected. WriteTimeout bounds the writing of the
	// answer from the end of the headers, and must be longer than
	// RequestTimeout (WriteTimeoutFor); IdleTimeout how long a keep-alive
	// connection may wait for its next request.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's headers (at least 4 KiB; larger
	// is 431).
	MaxHeaderBytes int
	// MaxConnections bounds the connections open at once, websockets
	// included (at least 16), all clients together;
	// MaxConnectionsPerClient those of one client (1 to MaxConnections).
	// A client at its share has its oldest idle keep-alive closed to make
	// room for a new connection, or is answered 429; at the total, the
	// client holding the most connections has its oldest idle one closed,
	// or the new connection is answered 503 (Listener).
	MaxConnections, MaxConnectionsPerClient int
	// MaxIdleConnectionsPerClient bounds the keep-alive connections one
	// client keeps open between requests (0 to MaxConnectionsPerClient):
	// past it, its connections idle the longest are closed once they have
	// been idle a second (a busy client's connections are idle for
	// microseconds between its requests, and one closed then would break
	// the request it is sending).
	MaxIdleConnectionsPerClient int
	// ComplexityLimit bounds an operation's complexity: each field costs
	// 1, a page multiplies its items' cost by first/last.
	ComplexityLimit int
	// DepthLimit bounds how deep fields nest.
	DepthLimit int
	// MaxTokens bounds a document's tokens (at least 100; GraphiQL's
	// introspection query has about 400).
	MaxTokens int
	// MaxFields bounds a document's fields once its fragments are spread
	// in place (at least 10; the introspection query has about 450).
	MaxFields int
	// CORSOrigins are the origins browsers may call the API from
	// ("https://example.com", "*" for any); none: same origin only.
	CORSOrigins []string
	// QueryCacheBytes bounds the memory of the parsed documents kept,
	// APQCacheBytes that of the persisted queries (each at least 1 MiB).
	// Only documents that passed every check are kept.
	QueryCacheBytes, APQCacheBytes int64
	// CacheMaxAge is the max-age of GET answers that cannot change; 0:
	// clients ask again each time (with their ETag).
	CacheMaxAge time.Duration
	// AnswerCacheBytes is the memory for whole answers that cannot change,
	// kept as bytes and served again to the same request without running
	// it (answercache.go); 0 turns it off.
	AnswerCacheBytes int64
	// DirectPages answers page queries of the common shape by writing
	// the resolvers' results directly instead of through gqlgen's
	// executor (graph.DirectPages): the same answer, byte for byte, for
	// a third of the CPU. false: every operation goes through gqlgen.
	DirectPages bool
	// Compressors bounds the answers and exports compressed at once (gzip
	// or zstd, about 1 MiB each; compress.go), CompressorsPerClient those
	// of one client; past either an answer goes uncompressed. 0: no
	// compression. CompressMinBytes: smaller answers go as they are.
	Compressors, CompressorsPerClient int
	CompressMinBytes                  int64
	// RateLimit is how many /graphql requests a second each client (its
	// remote IP address) may make, in bursts of up to RateBurst (at least
	// 1); 0 turns the limit off. Over it a request is answered 429
	// RATE_LIMITED with Retry-After.
	RateLimit float64
	RateBurst int
	// WSMaxConnections bounds the websockets open at once (each holds a
	// socket, an open file, and a few goroutines), of which one client
	// may hold WSMaxConnectionsPerClient (a larger share is the total);
	// past either an upgrade is refused before it happens, with
	// Retry-After: 429 RATE_LIMITED for the client's share, 503
	// UNAVAILABLE for the total.
	WSMaxConnections, WSMaxConnectionsPerClient int
	// WSMaxSubscriptions bounds the operations one websocket runs at
	// once: subscriptions, and queries and mutations not answered yet.
	// Past it a subscribe gets an "error" message (BAD_USER_INPUT, reason
	// SUBSCRIPTION_LIMIT_EXCEEDED); the connection stays.
	WSMaxSubscriptions int
	// WSInitTimeout is how long a new websocket has to send its
	// connection_init; past it the socket is closed with 4408.
	WSInitTimeout time.Duration
	// WSPingInterval is how often the server pings each websocket,
	// WSPongTimeout how long it waits for the pong, or for the peer to
	// take a message, before it drops the connection as dead.
	WSPingInterval, WSPongTimeout time.Duration
	// WSMaxMessageBytes bounds a websocket message (at least 1 KiB),
	// checked on its frames' headers as they arrive: a frame that would
	// take its message past it closes the socket (1009) before its
	// payload is read. WSMessageTimeout is how long a message may take to
	// arrive whole once its first byte has: past it the socket is closed
	// (1008). Between messages a socket may be silent.
	WSMaxMessageBytes int64
	WSMessageTimeout  time.Duration
	// SSEMaxStreams bounds the event streams open at once (GraphQL over
	// Server-Sent Events, sse.go: each holds a connection, its request's
	// memory and a few goroutines for its operation's life), of which one
	// client may hold SSEMaxStreamsPerClient (a larger share is the
	// total); past either a request is refused before its stream starts,
	// with Retry-After: 429 RATE_LIMITED for the client's share, 503
	// UNAVAILABLE for the total.
	SSEMaxStreams, SSEMaxStreamsPerClient int
	// SSEKeepAlive is how often a stream with nothing to send gets a
	// comment line, so that proxies keep it and a peer gone is noticed;
	// SSEWriteTimeout how long the client may take to take an event or a
	// comment before its stream is dropped; SSEMaxDuration how long a
	// stream may live, after which it ends without "complete" and the
	// client subscribes again.
	SSEKeepAlive, SSEWriteTimeout, SSEMaxDuration time.Duration
	// ExportStore is where GET /export/{n}.csv, .ndjson and .parquet read the boards
	// it holds done with their solutions; nil: the solver only.
	ExportStore export.Store
	// ExportSolverMaxN is the largest N those exports enumerate with the
	// solver when the store does not hold it (0: none; 16 is 14.8 million
	// solutions, seconds of a core and 600 MB of CSV).
	ExportSolverMaxN int
	// ExportMaxConcurrent bounds the exports running at once (at least 1),
	// all clients together, ExportMaxPerClient those of one client (1 to
	// ExportMaxConcurrent). Past a client's share its next export is
	// refused with 429 RATE_LIMITED, past the total with 503 UNAVAILABLE,
	// both with Retry-After. Each holds a database connection, or a core,
	// while it runs.
	ExportMaxConcurrent, ExportMaxPerClient int
	// ExportStallTimeout is how long an export waits for its client to
	// take the next block of output before it drops it: the bound that
	// replaces WriteTimeout, which would cut a long download that is
	// going well.
	ExportStallTimeout time.Duration
	// ExportMaxDuration bounds a whole export, however well it goes.
	ExportMaxDuration time.Duration
	// ParquetDir is where the Parquet files of the boards the store holds
	// done are made once and kept, to be served with Range and ETag
	// (parquetfiles.go); "": not kept, every Parquet export streams (as
	// when the directory cannot be made: the server logs why).
	// ParquetDirMaxBytes bounds the files together: past it the least
	// recently served are removed.
	ParquetDir         string
	ParquetDirMaxBytes int64
	// ClientIPv6Prefix is how many leading bits of an IPv6 address name
	// its client (16 to 128): every address of a client's network shares
	// one client's shares and rate limit (client.go). IPv4 clients are
	// their address.
	ClientIPv6Prefix int
	// TrustedProxies are the addresses and networks of the proxies in
	// front of the server (a caching nginx, a load balancer): a request
	// from one of them is its client's, named by X-Forwarded-For, for the
	// rate limit and every share; the proxy's connections count against
	// MaxConnections only, each one on its own, for they carry many
	// clients' requests (client.go). None: X-Forwarded-For is ignored, as
	// anybody may send it.
	TrustedProxies []netip.Prefix
	// InflightBytes bounds the memory that requests in flight hold, all
	// clients together: a request accounts its body as it arrives, then
	// its parsed document and the answer its pricing expects, and holds
	// them until it is answered; a websocket operation holds its message
	// and document for its life. InflightBytesPerClient is one client's
	// share of it. A request that does not fit waits up to
	// AdmissionWait, then is refused: 429 when its client holds its
	// share, 503 when all clients hold the total; one larger than a
	// client's share is refused at once (BAD_USER_INPUT).
	InflightBytes, InflightBytesPerClient int64
	AdmissionWait                         time.Duration
	// AnswerSlots bounds the heavy answers computed at once (those whose
	// pricing holds a megabyte or more), one per client at a time: the
	// others wait their turn, clients computing none first, up to
	// AdmissionWait (turns.go).
	AnswerSlots int
	// OnOperation, when set, is told how each GraphQL query and mutation
	// went (for metrics).
	OnOperation func(Operation)
	// Logger receives one line per request (requestlog.go) and the errors.
	Logger *slog.Logger
	// TracerProvider makes the spans of requests, GraphQL operations and
	// their root fields (tracing.go). The no-op provider (serve's when
	// tracing is off) makes none, but an incoming traceparent is read for
	// the log lines; nil: not even that.
	TracerProvider trace.TracerProvider
}

// DefaultConfig is the configuration serve starts with (its flags take
// their defaults from here), without a store.
func DefaultConfig() Config {
	const requestTimeout = 10 * time.Second
	return Config{
		Graph: graph.DefaultOptions(),
		// Twice the default solver budget (graph.DefaultOptions): the
		// store's reads fit in the other half.
		RequestTimeout: requestTimeout,
		// A document within MaxTokens is far smaller; the rest is room
		// for variables.
		MaxBodyBytes: 1 << 20,
		// Headers fit in a packet or two: a client still sending them
		// after 5 s is stalling on purpose.
		ReadHeaderTimeout: 5 * time.Second,
		// A body of MaxBodyBytes takes 8.4 s at 1 Mbit/s.
		ReadTimeout:  10 * time.Second,
		WriteTimeout: WriteTimeoutFor(requestTimeout),
		// A viewer paging by hand reuses its connection; an idle one
		// costs only a socket.
		IdleTimeout: time.Minute,
		// Far above what browsers send, cookies included, and far below
		// Go's own default (1 MiB).
		MaxHeaderBytes: 32 << 10,
		// Each connection holds a file descriptor and about 10 KiB of
		// buffers and stack.
		MaxConnections: 2048,
		// A browser opens at most 6 connections to a host: 64 is a
		// dozen users behind one address (a NAT), and 32 clients at
		// their share before the total is reached.
		MaxConnectionsPerClient: 64,
		// Enough for a browser's 6 and a script's pool; an idle
		// keep-alive only saves its client a reconnection.
		MaxIdleConnectionsPerClient: 8,
		// A page of 1000 solutions (graph.DefaultOptions' MaxPageSize)
		// with a dozen fields each.
		ComplexityLimit: 20000,
		// A solution's fields nest 4 deep (solutions, edges, node,
		// field); deeper than 10 is a query built to cost.
		DepthLimit: 10,
		// 25 times GraphiQL's introspection query (about 400 tokens).
		MaxTokens: 10000,
		// 4 times the introspection query (about 450 fields).
		MaxFields: 2000,
		// Bounded in bytes so that distinct documents cannot grow the
		// heap; a persisted query is kept as text only, hence less.
		QueryCacheBytes: 24 << 20,
		APQCacheBytes:   8 << 20,
		// What cannot change could be kept for ever; a day bounds what an
		// upgrade leaves in clients' and proxies' caches.
		CacheMaxAge:      24 * time.Hour,
		AnswerCacheBytes: 32 << 20,
		DirectPages:      true,
		// A thirty-second of the default budget in compressors; one
		// client compresses four answers at once.
		Compressors: DefaultCompressors(DefaultMemoryBudget), CompressorsPerClient: 4, CompressMinBytes: 1024,
		// RateLimit stays 0 (off): clients behind one address (a NAT)
		// would share it, so the operator decides. Bursts of 20 let a
		// page's few requests at once through.
		RateBurst: 20,
		// Each websocket holds a socket, a file and a few goroutines: a
		// quarter of MaxConnections.
		WSMaxConnections: 500,
		// A viewer opens one; a few tabs, or a few users behind one
		// address, a few more.
		WSMaxConnectionsPerClient: 16,
		// A client follows a few boards at once.
		WSMaxSubscriptions: 10,
		// graphql-transport-ws clients send connection_init as soon as
		// the socket opens.
		WSInitTimeout: 5 * time.Second,
		// Often enough for proxies that drop connections idle for 30 s;
		// a peer gone is noticed within 25 s.
		WSPingInterval: 15 * time.Second,
		WSPongTimeout:  10 * time.Second,
		// A subscribe message is a document and its variables: the
		// viewer's are under 1 KiB, and a document within MaxTokens
		// rarely passes 64 KiB. Each operation holds its message for its
		// life.
		WSMaxMessageBytes: 64 << 10,
		// 64 KiB takes 0.5 s at 1 Mbit/s.
		WSMessageTimeout: 10 * time.Second,
		// Event streams cost what websockets cost: the same numbers.
		SSEMaxStreams:          500,
		SSEMaxStreamsPerClient: 16,
		// As the websockets' pings, and their pong timeout.
		SSEKeepAlive:    15 * time.Second,
		SSEWriteTimeout: 10 * time.Second,
		// A board's progress is followed for minutes; an hour bounds how
		// long one request holds its share, and clients resubscribe.
		SSEMaxDuration: time.Hour,
		// N=14 from the solver takes a tenth of a second; beyond it, the
		// boards the store holds.
		ExportSolverMaxN: 14,
		// Each export holds a read connection of the store while it
		// runs, and SQLite's read pool has 4 (sqlite.DefaultConfig):
		// half of them stay for the API's pages. Each streams at disk
		// speed, so a queue of downloads moves.
		ExportMaxConcurrent: 2,
		// A download at a time per client: one client can never hold
		// both, so another client's export always has a turn.
		ExportMaxPerClient: 1,
		// As long as the pong of a websocket peer that is alive.
		ExportStallTimeout: 30 * time.Second,
		// N=16 (600 MB of CSV) takes 8 minutes at 10 Mbit/s.
		ExportMaxDuration: 30 * time.Minute,
		// N=16 all and unique is 80 MB, N=17 about 500 MB.
		ParquetDirMaxBytes: 1 << 30,
		// A host picks any address of its /64 (RFC 4291 and SLAAC).
		ClientIPv6Prefix: 64,
		// A quarter of the default memory budget (512 MiB, see
		// DefaultInflightBytes), an eighth of it per client: about eight
		// clients asking for the heaviest answers at once before anyone
		// waits.
		InflightBytes:          DefaultInflightBytes(DefaultMemoryBudget),
		InflightBytesPerClient: DefaultInflightBytes(DefaultMemoryBudget) / 8,
		// Answers of the client's own earlier requests take milliseconds:
		// a wait this long means the server is saturated.
		AdmissionWait: 2 * time.Second,
		// A heavy answer keeps a core busy: half the cores, so that the
		// other half stays for every other request (and the solver's
		// searches, and the workers).
		AnswerSlots: max(1, runtime.GOMAXPROCS(0)/2),
		Logger:      slog.Default(),
	}
}

// DefaultMemoryBudget is the memory a process serves within when neither
// a setting nor the container says otherwise.
const DefaultMemoryBudget = 512 << 20

// DefaultInflightBytes is the memory requests in flight may hold in a
// process whose memory budget is budget: a quarter of it. The rest is the
// caches (about 110 MiB by default), the connections and websockets
// (their buffers), the workers, and room for the collector.
func DefaultInflightBytes(budget int64) int64 { return budget / 4 }

// DefaultCompressors is the Compressors that goes with a memory budget:
// one per 32 MiB (each holds about 1 MiB, compress.go), at least one.
func DefaultCompressors(budget int64) int { return max(1, int(budget/(32<<20))) }

// WriteTimeoutFor is the WriteTimeout that goes with a request timeout:
// 10 s more, so that an answer that used its whole time budget is still
// written.
func WriteTimeoutFor(requestTimeout time.Duration) time.Duration {
	return requestTimeout + 10*time.Second
}

// Check says which field of c New refuses, if any, and what is allowed
// (a *configcheck.Error; a field of Graph is named "Graph.…").
func (c Config) Check() error {
	if err := c.Graph.Check(); err != nil {
		return configcheck.In("Graph", err)
	}
	err := cmp.Or(
		configcheck.Positive("RequestTimeout", c.RequestTimeout),
		configcheck.AtLeast("MaxBodyBytes", c.MaxBodyBytes, 1024),
		configcheck.Positive("ReadHeaderTimeout", c.ReadHeaderTimeout),
		configcheck.Positive("ReadTimeout", c.ReadTimeout),
		configcheck.Positive("WriteTimeout", c.WriteTimeout),
		configcheck.Positive("IdleTimeout", c.IdleTimeout),
		configcheck.AtLeast("MaxHeaderBytes", c.MaxHeaderBytes, 4096),
		configcheck.AtLeast("MaxConnections", c.MaxConnections, 16),
		configcheck.Between("MaxConnectionsPerClient", c.MaxConnectionsPerClient, 1, c.MaxConnections, "at most MaxConnections"),
		configcheck.Between("MaxIdleConnectionsPerClient", c.MaxIdleConnectionsPerClient, 0, c.MaxConnectionsPerClient, "at most MaxConnectionsPerClient; 0: no idle keep-alive is kept"),
		configcheck.AtLeast("ComplexityLimit", c.ComplexityLimit, 1),
		configcheck.AtLeast("DepthLimit", c.DepthLimit, 1),
		configcheck.AtLeast("MaxTokens", c.MaxTokens, 100),
		configcheck.AtLeast("MaxFields", c.MaxFields, 10),
		configcheck.AtLeast("QueryCacheBytes", c.QueryCacheBytes, 1<<20),
		configcheck.AtLeast("APQCacheBytes", c.APQCacheBytes, 1<<20),
		configcheck.NotNegative("CacheMaxAge", c.CacheMaxAge),
		configcheck.AtLeast("AnswerCacheBytes", c.AnswerCacheBytes, 0),
		configcheck.AtLeast("Compressors", c.Compressors, 0),
		configcheck.AtLeast("CompressorsPerClient", c.CompressorsPerClient, 1),
		configcheck.AtLeast("CompressMinBytes", c.CompressMinBytes, 0),
		configcheck.AtLeast("RateBurst", c.RateBurst, 1),
		configcheck.AtLeast("WSMaxConnections", c.WSMaxConnections, 1),
		configcheck.AtLeast("WSMaxConnectionsPerClient", c.WSMaxConnectionsPerClient, 1),
		configcheck.AtLeast("WSMaxSubscriptions", c.WSMaxSubscriptions, 1),
		configcheck.Positive("WSInitTimeout", c.WSInitTimeout),
		configcheck.Positive("WSPingInterval", c.WSPingInterval),
		configcheck.Positive("WSPongTimeout", c.WSPongTimeout),
		configcheck.AtLeast("WSMaxMessageBytes", c.WSMaxMessageBytes, 1024),
		configcheck.Positive("WSMessageTimeout", c.WSMessageTimeout),
		configcheck.AtLeast("SSEMaxStreams", c.SSEMaxStreams, 1),
		configcheck.AtLeast("SSEMaxStreamsPerClient", c.SSEMaxStreamsPerClient, 1),
		configcheck.Positive("SSEKeepAlive", c.SSEKeepAlive),
		configcheck.Positive("SSEWriteTimeout", c.SSEWriteTimeout),
		configcheck.Positive("SSEMaxDuration", c.SSEMaxDuration),
		configcheck.AtLeast("ExportSolverMaxN", c.ExportSolverMaxN, 0),
		configcheck.AtLeast("ExportMaxConcurrent", c.ExportMaxConcurrent, 1),
		configcheck.Between("ExportMaxPerClient", c.ExportMaxPerClient, 1, c.ExportMaxConcurrent, "at most ExportMaxConcurrent"),
		configcheck.Positive("ExportStallTimeout", c.ExportStallTimeout),
		configcheck.Positive("ExportMaxDuration", c.ExportMaxDuration),
		configcheck.AtLeast("ParquetDirMaxBytes", c.ParquetDirMaxBytes, 0),
		configcheck.Between("ClientIPv6Prefix", c.ClientIPv6Prefix, 16, 128, "bits of an IPv6 address that name its client; 64: a /64"),
		checkPrefixes("TrustedProxies", c.TrustedProxies),
		configcheck.AtLeast("InflightBytes", c.InflightBytes, 1<<20),
		configcheck.Between("InflightBytesPerClient", c.InflightBytesPerClient, 64<<10, c.InflightBytes, "at most InflightBytes"),
		configcheck.Positive("AdmissionWait", c.AdmissionWait),
		configcheck.AtLeast("AnswerSlots", c.AnswerSlots, 1),
		configcheck.Logger("Logger", c.Logger == nil),
	)
	switch {
	case err != nil:
		return err
	case c.RateLimit < 0 || math.IsNaN(c.RateLimit) || math.IsInf(c.RateLimit, 0):
		return configcheck.Errorf("RateLimit", "must be a number of requests a second, 0 for no limit, got %g", c.RateLimit)
	case c.WriteTimeout <= c.RequestTimeout:
		return configcheck.Errorf("WriteTimeout", "(%s) must be longer than RequestTimeout (%s), or answers would be cut before their time budget ends", c.WriteTimeout, c.RequestTimeout)
	}
	return nil
}

// Server is the service's HTTP handler.
type Server struct {
	cfg      Config
	mux      *http.ServeMux
	gql      *handler.Server
	resolver *graph.Resolver
	handler  http.Handler
	limiter  *rateLimiter  // nil: no rate limit
	exports  *quota.Pool   // exports running (ExportMaxPerClient, ExportMaxConcurrent)
	parquet  *parquetFiles // the Parquet files made once (ParquetDir); nil: none
	conns    *connections  // connections open (Listener)
	proxies  trustedProxies
	memory   *quota.Pool // bytes held by requests in flight (InflightBytes)
	// websockets are the websockets open (WSMaxConnections, and
	// WSMaxConnectionsPerClient each).
	websockets *quota.Pool
	ws         *wsTransport
	// streams are the event streams open (SSEMaxStreams, and
	// SSEMaxStreamsPerClient each; sse.go).
	streams *quota.Pool
	answers *quota.Pool // turns to compute heavy answers (AnswerSlots; turns.go)
	// answerCache keeps the bytes of answers that cannot change
	// (answercache.go); nil when AnswerCacheBytes is 0.
	answerCache *answerCache
	gqlSchema   *ast.Schema // the schema served, for its SDL (schema.go)
	// directPages answers the common page queries (nil when off).
	directPages *graph.DirectPages
	// compress compresses answers and exports (compress.go); nil when off.
	compress *compression
	present  graphql.ErrorPresenterFunc
	// solver runs the resolvers' searches; each operation gets its
	// budget and its client's share from it.
	solver *solverpool.Pool

	// closing ends the websocket subscriptions when the server shuts down:
	// http.Server.Shutdown does not track hijacked connections.
	closing context.Context
	close   context.CancelFunc
}

// New builds the server with cfg as it is (DefaultConfig, changed where
// needed); it refuses a cfg that Check refuses.
func New(cfg Config) (*Server, error) {
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	cfg.Graph.Logger = cfg.Logger
	// The server owns the solver pool the resolvers search on: it gives
	// each operation its budget and its client's share, and counts the
	// queue for metrics.
	pool := solverpool.New(cfg.Graph.SolverPoolConfig())
	cfg.Graph.Solver = pool
	res, err := graph.NewResolver(cfg.Graph)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), resolver: res, solver: pool, present: errorPresenter(cfg.Logger, cfg.RequestTimeout)}
	s.closing, s.close = context.WithCancel(context.Background())
	s.memory = quota.New(apierror.PoolMemory, cfg.InflightBytesPerClient, cfg.InflightBytes, quota.LightestFirst())
	s.answerCache = newAnswerCache(cfg.AnswerCacheBytes)
	if s.compress, err = newCompression(cfg); err != nil {
		return nil, err
	}
	s.answers = quota.New(apierror.PoolAnswers, 1, int64(cfg.AnswerSlots), quota.LightestFirst())
	s.gql = s.newGraphQL()
	if cfg.RateLimit > 0 {
		s.limiter = newRateLimiter(cfg.RateLimit, cfg.RateBurst)
	}

	s.conns = newConnections(cfg)
	s.proxies = s.conns.proxies
	s.exports = quota.New(apierror.PoolExports, int64(cfg.ExportMaxPerClient), int64(cfg.ExportMaxConcurrent))
	if cfg.ParquetDir != "" {
		// A directory that cannot be made (a read-only file system)
		// costs the ranges, not the export: it streams.
		if s.parquet, err = newParquetFiles(cfg.ParquetDir, cfg.ParquetDirMaxBytes); err != nil {
			cfg.Logger.Warn("Parquet files are not kept; every Parquet export streams, without ranges", "error", err)
		}
	}
	s.websockets = quota.New(apierror.PoolWebsockets, int64(min(cfg.WSMaxConnectionsPerClient, cfg.WSMaxConnections)), int64(cfg.WSMaxConnections))
	s.streams = quota.New(apierror.PoolStreams, int64(min(cfg.SSEMaxStreamsPerClient, cfg.SSEMaxStreams)), int64(cfg.SSEMaxStreams))

	s.mux.HandleFunc("/graphql", s.serveGraphQL)
	s.mux.HandleFunc("GET /graphql/schema.graphql", s.serveSchema()) // schema.go
	s.mux.HandleFunc("GET /export/{file}", s.serveExport)            // export.go
	playground := web.Playground()                                   // GraphiQL, served from the binary
	s.mux.Handle("/playground", playground)
	s.mux.Handle("/playground/", playground)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = io.WriteString(w, "ok\n")
	})

	var h http.Handler = s.mux
	if len(cfg.CORSOrigins) > 0 {
		h = cors.New(cors.Options{
			AllowedOrigins: cfg.CORSOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodOptions},
			// Range, If-Range and the ranges' headers: a Parquet reader
			// in a page (hyparquet, DuckDB-Wasm) reads a file's parts.
			AllowedHeaders: []string{"Accept", "Authorization", "Content-Type", "If-None-Match", "Range", "If-Range"},
			ExposedHeaders: []string{"ETag", "Accept-Ranges", "Content-Range", "Content-Length", "Last-Modified"},
			MaxAge:         600,
		}).Handler(h)
	}
	s.handler = logRequests(cfg.Logger, h)
	if cfg.TracerProvider != nil {
		s.handler = traceRequests(cfg.TracerProvider, s.handler)
	}
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Handle adds a route (e.g. /readyz, /metrics, /riverui or the viewer at
// /) to the server's mux; see http.ServeMux for patterns.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Close ends the running subscriptions: every websocket is closed with
// 1001 (going away), every event stream ends without "complete", and the
// goroutines that follow boards for them end. Call it when shutting down,
// before http.Server.Shutdown, which waits for plain requests (event
// streams among them) but not for websockets.
func (s *Server) Close() {
	s.close()
	s.resolver.Close()
}

// Pools returns what the server shares between clients, each with its
// share per client and its total (for metrics: what is held, what waits,
// what was refused).
func (s *Server) Pools() []*quota.Pool {
	pools := []*quota.Pool{s.conns.pool, s.websockets, s.streams, s.exports, s.memory, s.answers, s.solver.Queue()}
	if s.compress != nil {
		pools = append(pools, s.compress.slots)
	}
	return pools
}

// Resolver returns the root resolver, with its options in effect.
func (s *Server) Resolver() *graph.Resolver { return s.resolver }

// DirectPageAnswers returns how many operations graph.DirectPages has
// answered (0 when Config.DirectPages is off).
func (s *Server) DirectPageAnswers() int64 {
	if s.directPages == nil {
		return 0
	}
	return s.directPages.Answered.Load()
}

// newGraphQL sets up gqlgen: explicit transports, caches, extensions,
// error presenter and recover function.
func (s *Server) newGraphQL() *handler.Server {
	cfg := s.cfg
	schema := graph.NewSchema(s.resolver)
	s.gqlSchema = schema.Schema()
	srv := handler.New(schema)

	s.ws = s.newWebsocketTransport()
	srv.AddTransport(s.ws) // graphql-transport-ws (websocket.go)
	// GraphQL over Server-Sent Events (sse.go): before the HTTP
	// transports, which would answer its POSTs and GETs with JSON.
	srv.AddTransport(&sseTransport{s: s, schema: schema.Schema()})
	srv.AddTransport(transport.Options{AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodOptions}})
	// GraphQL over HTTP, as transport.GET and transport.POST do it but to
	// the letter of the spec, with messages that say what is allowed, and
	// cheaper (transport.go).
	srv.AddTransport(getTransport{schema: schema.Schema()})
	srv.AddTransport(postTransport{schema: schema.Schema()})

	// A document is priced before it is parsed for good and validated
	// (documentShape), its operation before it runs
	// (answerPricer); only what passed both is cached, as parsed
	// document and as persisted query.
	docs := newDocumentCache(cfg.QueryCacheBytes, documentCost)
	persisted := persistedQueries{cache: newDocumentCache(cfg.APQCacheBytes, persistedQueryCost)}
	srv.SetQueryCache(docs)
	srv.SetParserTokenLimit(cfg.MaxTokens)
	srv.Use(extension.Introspection{})
	srv.Use(persisted.lookup())
	srv.Use(documentShape{
		MaxTokens: cfg.MaxTokens,
		MaxFields: cfg.MaxFields,
		MaxDepth:  cfg.DepthLimit,
		Known: func(ctx context.Context, query string) bool {
			_, ok := docs.Get(ctx, query)
			return ok
		},
	})
	srv.Use(&answerPricer{Limit: cfg.ComplexityLimit, DocumentBytes: docs.costOf,
		PageSize: cfg.Graph.DefaultPageSize, MaxPageSize: cfg.Graph.MaxPageSize, ArgumentError: s.resolver.ArgumentError})
	srv.Use(persisted.register())
	srv.Use(operationWatcher{observe: cfg.OnOperation})
	var tracer *operationTracer
	if tracing.Records(cfg.TracerProvider) {
		t := newOperationTracer(cfg.TracerProvider)
		tracer = &t
		srv.Use(t)
	}
	if cfg.DirectPages {
		// Innermost: an answer it writes has passed every check above.
		s.directPages = &graph.DirectPages{Resolver: s.resolver}
		if tracer != nil {
			s.directPages.TraceRoot = tracer.startField
		}
		srv.Use(s.directPages)
	}

	// Each operation shares its solver budget between its fields (and
	// computes identical ones once). Queries and mutations sent over a
	// websocket get the same time budget as HTTP requests (which have it
	// from serveGraphQL already).
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		ctx = s.solver.WithOperation(ctx, clientOf(ctx))
		op := graphql.GetOperationContext(ctx).Operation
		if _, ok := ctx.Deadline(); ok || op == nil || op.Operation == ast.Subscription {
			return s.inTurn(next(ctx))
		}
		ctx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
		h := next(ctx)
		return func(ctx context.Context) *graphql.Response {
			defer cancel()
			return h(ctx)
		}
	})

	srv.SetErrorPresenter(s.present)
	srv.SetRecoverFunc(recoverFunc(cfg.Logger))
	return srv
}

// bearer returns the token of an "Authorization: Bearer <token>" value.
func bearer(h string) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// serveGraphQL answers /graphql: it applies the rate limit, checks the
// method, media type and body size itself (gqlgen would answer 400
// "transport not supported"), bounds the request's time and hands the
// request to gqlgen, whose HTTP transports are ours (transport.go). GET
// answers get an ETag and a Cache-Control.
func (s *Server) serveGraphQL(w http.ResponseWriter, r *http.Request) {
	client := s.client(r)
	if s.limiter != nil {
		if ok, retryAfter := s.limiter.allow(client); !ok {
			s.refuseRateLimited(w, r, retryAfter)
			return
		}
	}
	ctx := graph.WithBearerToken(r.Context(), bearer(r.Header.Get("Authorization")))
	ctx = withClient(ctx, client)
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		// Subscriptions live as long as the connection or until Close;
		// the writer must stay hijackable.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.closing, cancel)
		defer stop()
		s.gql.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	if wantsEventStream(r) {
		// An event stream lives as long as its operation (sse.go): no
		// request timeout, no compression, no answer cache.
		s.gql.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodPost:
	case http.MethodOptions:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		s.fail(w, r, http.StatusMethodNotAllowed, apierror.BadUserInput, "",
			fmt.Sprintf("method %s is not allowed on /graphql; use POST (queries and mutations) or GET (queries)", r.Method))
		return
	}
	// The request holds memory from here to its answer: its body first,
	// then (answerPricer grows the hold) its document and the
	// answer its pricing expects.
	hold, err := s.admit(r, client)
	if err != nil {
		s.refuse(w, r, err)
		return
	}
	defer hold.Release()
	ctx = s.withAdmission(ctx, hold)
	body := getBuffer()
	defer putBuffer(body)
	if !s.readRequest(w, r, body) {
		return
	}

	var posted []byte
	if rb, ok := r.Body.(*requestBody); ok {
		posted = rb.b
	}
	key, cacheable := s.answerCache.keyOf(r, posted)
	if cacheable && s.serveCachedAnswer(w, r, key, hold) {
		return
	}

	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	ctx, hint := graph.WithCacheHint(ctx)
	r = r.WithContext(ctx)
	h, compressed, short := s.compress.handler(client, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.runGraphQL(w, r, hint)
	}))
	defer compressed()
	// An answer left uncompressed for want of a compressor is not kept
	// for the clients that will ask as this one did.
	if !cacheable || short {
		h.ServeHTTP(w, r)
		return
	}
	// What goes to the client, compressed or not, is what the answer
	// cache keeps.
	tee := &teeWriter{ResponseWriter: w, buf: getBuffer()}
	defer putBuffer(tee.buf)
	h.ServeHTTP(tee, r)
	if !tee.over {
		s.keepAnswer(r, client, key, tee.status, w.Header(), tee.buf.Bytes(), hint)
	}
}

// readRequest reads a POST's JSON body into body, within MaxBodyBytes,
// and puts it in place of r.Body (a *requestBody); a GET's query string is
// checked against the same bound. False when it answered instead: 415 for
// a body that is not JSON, 413 or 414 past the bound, 400 for a body that
// could not be read.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, body *bytes.Buffer) bool {
	if r.Method != http.MethodPost {
		if int64(len(r.URL.RawQuery)) > s.cfg.MaxBodyBytes {
			s.fail(w, r, http.StatusRequestURITooLong, apierror.BadUserInput, apierror.ReasonBodySize,
				fmt.Sprintf("the query string is longer than %d bytes; send large requests with POST", s.cfg.MaxBodyBytes))
			return false
		}
		return true
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != mediaJSON {
		got := "no Content-Type"
		if ct := r.Header.Get("Content-Type"); ct != "" {
			got = "Content-Type " + quoteShort(ct)
		}
		s.fail(w, r, http.StatusUnsupportedMediaType, apierror.BadUserInput, "",
			got+" is not supported; send a JSON body with Content-Type: application/json")
		return false
	}
	if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.fail(w, r, http.StatusRequestEntityTooLarge, apierror.BadUserInput, apierror.ReasonBodySize,
				fmt.Sprintf("the request body is larger than %d bytes, the most this server reads", s.cfg.MaxBodyBytes))
			return false
		}
		s.fail(w, r, http.StatusBadRequest, apierror.BadUserInput, "", "the request body could not be read")
		return false
	}
	r.Body = &requestBody{Reader: bytes.NewReader(body.Bytes()), b: body.Bytes()}
	return true
}

// runGraphQL runs a request through gqlgen. A POST's answer goes to the
// client as gqlgen writes it, without a copy (of megabytes, for the
// largest); a GET's is held to give it an ETag and a Cache-Control.
func (s *Server) runGraphQL(w http.ResponseWriter, r *http.Request, hint *graph.CacheHint) {
	if r.Method == http.MethodPost {
		s.gql.ServeHTTP(w, r)
		return
	}
	rec := &recorder{header: w.Header(), status: http.StatusOK, body: getBuffer()}
	defer putBuffer(rec.body)
	s.gql.ServeHTTP(rec, r)
	if rec.status == http.StatusOK && s.cacheHeaders(w, r, rec.body.Bytes(), hint) {
		return
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// cacheHeaders sets ETag, Cache-Control and Vary on a GET answer and
// answers 304 Not Modified when the client holds it already (true).
// Answers with errors are not cached; answers that may change (a board
// still computing, counts not known yet) must be revalidated; the rest,
// pages and solutions above all, never change.
func (s *Server) cacheHeaders(w http.ResponseWriter, r *http.Request, body []byte, hint *graph.CacheHint) bool {
	h := w.Header()
	h.Add("Vary", "Accept")
	if bytes.HasPrefix(body, []byte(`{"errors":`)) {
		h.Set("Cache-Control", "no-store")
		return false
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	h.Set("ETag", etag)
	if hint.Volatile() {
		h.Set("Cache-Control", "no-cache")
	} else {
		h.Set("Cache-Control", s.immutableCacheControl())
	}
	if held, ok := etagMatch(r.Header.Get("If-None-Match"), etag); ok {
		// The client's copy may be compressed: the 304 names the tag it
		// holds.
		h.Set("ETag", held)
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

// immutableCacheControl is the Cache-Control of a GET answer that cannot
// change.
func (s *Server) immutableCacheControl() string {
	return "public, max-age=" + strconv.Itoa(int(s.cfg.CacheMaxAge.Seconds()))
}

// etagMatch implements If-None-Match's weak comparison, and returns the
// tag that matched: etag, or etag as a compressed answer carried it
// (compress.go).
func etagMatch(header, etag string) (string, bool) {
	if header == "" {
		return "", false
	}
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == "*" || part == etag {
			return etag, true
		}
		for _, suffix := range etagSuffixes {
			if part == strings.TrimSuffix(etag, `"`)+suffix+`"` {
				return part, true
			}
		}
	}
	return "", false
}

// fail answers a request refused before GraphQL saw it, with a GraphQL
// error body.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, code apierror.Code, reason, msg string) {
	setContentType(w, mediaType(r.Header.Get("Accept")))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(code, reason, msg))
}

// errorBody is the GraphQL answer of a request refused before GraphQL saw
// it: one error, with its code and reason (when there is one).
func errorBody(code apierror.Code, reason, msg string) []byte {
	ext := map[string]any{"code": string(code)}
	if reason != "" {
		ext["reason"] = reason
	}
	body, _ := json.Marshal(struct {
		Errors gqlerror.List `json:"errors"`
	}{gqlerror.List{{Message: msg, Extensions: ext}}})
	return body
}

// recorder holds gqlgen's answer to a GET so that its status can be fixed
// and its body given an ETag before anything is sent.
type recorder struct {
	header http.Header
	status int
	body   *bytes.Buffer
}

// buffers hold request bodies and answers: a page of 20 solutions is a
// few kB either way, and every request needs both.
var buffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 8<<10)) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

// putBuffer returns b to the pool, unless it grew large (a page of 1000
// solutions with their pictures): those are left to the collector.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() > 256<<10 {
		return
	}
	b.Reset()
	buffers.Put(b)
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
