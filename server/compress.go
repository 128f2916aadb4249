package server

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// Answers and exports are compressed with gzip or zstd, as the client's
// Accept-Encoding chooses, by klauspost/compress's gzhttp: it negotiates
// (q-values included; zstd when both are equally welcome), streams, leaves
// answers under CompressMinBytes as they are, and gives a compressed answer
// its own ETag ("…-gzip", "…-zstd"), as RFC 9110 asks of another
// representation.
//
// A compressor holds about a megabyte (measured: gzip at level 1, 0.8
// MiB; zstd at its fastest with a 128 KiB window, 0.6 MiB), so the
// compressors are a shared resource like any other: CompressorsPerClient
// for one client, Compressors in all. A request that finds none free is
// answered uncompressed, never refused: identity is always acceptable.

// compression wraps handlers with gzhttp when a compressor is free.
type compression struct {
	wrap  func(http.Handler) http.HandlerFunc
	slots *quota.Pool
}

// newCompression returns nil when compression is off (Compressors 0).
func newCompression(cfg Config) (*compression, error) {
	if cfg.Compressors <= 0 {
		return nil, nil
	}
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(int(cfg.CompressMinBytes)),
		gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.EnableZstd(true),
		gzhttp.ZstdCompressionLevel(int(zstd.SpeedFastest)),
		gzhttp.PreferZstd(true),
		gzhttp.SuffixETag("-gzip"), // "-zstd" for zstd
		gzhttp.ContentTypes([]string{mediaGraphQLResponse, mediaJSON, "text/csv", "application/x-ndjson"}),
	)
	if err != nil {
		return nil, err
	}
	per := min(cfg.CompressorsPerClient, cfg.Compressors)
	return &compression{wrap: wrap, slots: quota.New(apierror.PoolCompressors, int64(per), int64(cfg.Compressors))}, nil
}

// handler returns h compressing its answer when r accepts gzip or zstd and
// client may take a compressor now, what to call once h has answered, and
// whether the answer goes uncompressed only for want of a compressor.
func (c *compression) handler(client string, r *http.Request, h http.Handler) (_ http.Handler, done func(), short bool) {
	if c == nil {
		return h, func() {}, false
	}
	if acceptsCompression(r.Header.Get("Accept-Encoding")) {
		if slot, err := c.slots.Take(client, 1); err == nil {
			return c.wrap(h), slot.Release, false // gzhttp sets Vary
		}
		short = true // none free: the answer goes as it is
	}
	// The answer would have been compressed for another Accept-Encoding:
	// caches must know.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		h.ServeHTTP(w, r)
	}), func() {}, short
}

// acceptsCompression reports whether an Accept-Encoding names gzip or zstd
// (gzhttp weighs the q-values and ignores "*"; this only spares a
// compressor otherwise).
func acceptsCompression(header string) bool {
	return strings.Contains(header, "gzip") || strings.Contains(header, "zstd")
}

// etagSuffixes are what gzhttp appends to an ETag of a compressed answer.
var etagSuffixes = []string{"-gzip", "-zstd"}
