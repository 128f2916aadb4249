package server

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/bytecache"
)

// The answer cache keeps the bytes of answers that cannot change — a page
// of a finished board, its counts, a solution by rank — keyed by the
// request that asked for them, so that the same request is answered again
// without parsing, pricing or resolving anything. Only what every limit
// already let through is kept: the request was rate-limited, admitted
// and read as any other before the lookup, and its document passed every
// check the first time, which is what makes the same bytes safe to serve.
//
// What may be kept: a query (never a mutation) answered 200 without
// errors, that no resolver marked volatile (graph.CacheHint: a board still
// computing, counts not known yet), asked without an Authorization header
// (an answer may depend on the token), at most maxCachedAnswer bytes.

// maxCachedAnswer bounds an answer the cache keeps: pages and counts are a
// few kilobytes, and larger answers are rare enough to be built each time.
const maxCachedAnswer = 64 << 10

// answerKey names a request: its method, what it accepts and its body (POST)
// or query string (GET).
type answerKey [sha256.Size]byte

// cachedAnswer is what the client got the first time.
type cachedAnswer struct {
	contentType string
	body        []byte
	etag        string // GET answers only
	operation   string // for the request log and the metrics
}

// answerCache is a byte-bounded LRU of answers; nil when turned off.
type answerCache struct {
	c            *bytecache.Cache[answerKey, *cachedAnswer]
	hits, misses atomic.Int64
}

func newAnswerCache(budget int64) *answerCache {
	if budget <= 0 {
		return nil
	}
	return &answerCache{c: bytecache.New(budget, func(_ answerKey, a *cachedAnswer) int64 {
		return int64(len(a.body)+len(a.contentType)+len(a.etag)+len(a.operation)) + 160
	})}
}

// keyOf returns the key of r whose body is body (nil for GET), and
// whether r may be answered from the cache at all.
func (c *answerCache) keyOf(r *http.Request, body []byte) (answerKey, bool) {
	if c == nil || r.Header.Get("Authorization") != "" {
		return answerKey{}, false
	}
	h := sha256.New()
	h.Write([]byte(r.Method))
	h.Write([]byte{0})
	h.Write([]byte(r.Header.Get("Accept")))
	h.Write([]byte{0})
	if r.Method == http.MethodGet {
		h.Write([]byte(r.URL.RawQuery))
	} else {
		h.Write(body)
	}
	var k answerKey
	h.Sum(k[:0])
	return k, true
}

// serveCachedAnswer answers r from the cache when it holds r's answer (true).
func (s *Server) serveCachedAnswer(w http.ResponseWriter, r *http.Request, key answerKey) bool {
	a, ok := s.answerCache.c.Get(key)
	if !ok {
		s.answerCache.misses.Add(1)
		return false
	}
	s.answerCache.hits.Add(1)
	start := time.Now()
	noteOperation(r.Context(), a.operation)
	h := w.Header()
	if a.etag != "" {
		h.Add("Vary", "Accept")
		h.Set("ETag", a.etag)
		h.Set("Cache-Control", s.immutableCacheControl())
		if etagMatch(r.Header.Get("If-None-Match"), a.etag) {
			w.WriteHeader(http.StatusNotModified)
			s.observeCached(a, start)
			return true
		}
	}
	h.Set("Content-Type", a.contentType)
	_, _ = w.Write(a.body)
	s.observeCached(a, start)
	return true
}

// AnswerCacheStats returns how many requests that could be answered from
// the answer cache were (hits) and were not (misses, then run).
func (s *Server) AnswerCacheStats() (hits, misses int64) {
	if s.answerCache == nil {
		return 0, 0
	}
	return s.answerCache.hits.Load(), s.answerCache.misses.Load()
}

// observeCached tells Config.OnOperation of an answer the cache gave, as
// of any other.
func (s *Server) observeCached(a *cachedAnswer, start time.Time) {
	if s.cfg.OnOperation != nil {
		s.cfg.OnOperation(Operation{Name: a.operation, Outcome: OutcomeOK, Duration: time.Since(start)})
	}
}

// keepAnswer keeps an answer gqlgen gave, when it may be kept.
func (s *Server) keepAnswer(r *http.Request, key answerKey, status int, header http.Header, body []byte, hint *graph.CacheHint) {
	ri, _ := r.Context().Value(requestInfoKey{}).(*requestInfo)
	if status != http.StatusOK || hint.Volatile() || len(body) > maxCachedAnswer || ri == nil || !ri.query.Load() ||
		bytes.Contains(body, []byte(`"errors":`)) {
		return
	}
	a := &cachedAnswer{contentType: header.Get("Content-Type"), body: bytes.Clone(body), etag: header.Get("ETag")}
	if op := ri.operation.Load(); op != nil {
		a.operation = *op
	}
	s.answerCache.c.Add(key, a)
}

// teeWriter copies what a handler writes to the client into buf, up to
// maxCachedAnswer bytes (past that, over is set and the copy stops).
type teeWriter struct {
	http.ResponseWriter
	status int
	buf    *bytes.Buffer
	over   bool
}

func (t *teeWriter) WriteHeader(status int) {
	if t.status == 0 {
		t.status = status
	}
	t.ResponseWriter.WriteHeader(status)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	if t.status == 0 {
		t.status = http.StatusOK
	}
	if !t.over {
		if t.buf.Len()+len(b) > maxCachedAnswer {
			t.over = true
		} else {
			t.buf.Write(b)
		}
	}
	return t.ResponseWriter.Write(b)
}

// Unwrap is for http.ResponseController.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
