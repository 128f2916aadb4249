package server

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/bytecache"
	"github.com/nqueens/nqueens/internal/quota"
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
// errors (as the operation watcher saw it: the bytes may be compressed),
// that no resolver marked volatile (graph.CacheHint: a board still
// computing, counts not known yet), asked without an Authorization header
// (an answer may depend on the token), at most maxCachedAnswer bytes.

// maxCachedAnswer bounds an answer the cache keeps: pages and counts are a
// few kilobytes, and larger answers are rare enough to be built each time.
const maxCachedAnswer = 64 << 10

// answerKey names a request: its method, the media type and encodings it
// accepts, and its body (POST) or query string (GET).
type answerKey [sha256.Size]byte

// cachedAnswer is what the client got the first time.
type cachedAnswer struct {
	header    http.Header // those of keptHeaders the answer had
	body      []byte      // as sent: compressed when it was
	operation string      // for the request log and the metrics
	// priced is what the request's pricing held of the memory budget:
	// a request answered from the cache holds as much (see
	// serveCachedAnswer).
	priced int64
}

// keptHeaders are the headers of an answer that the cache repeats.
var keptHeaders = []string{"Content-Type", "Content-Encoding", "Vary", "ETag", "Cache-Control"}

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
		return int64(len(a.body)+len(a.operation)) + 400
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
	h.Write([]byte(r.Header.Get("Accept-Encoding"))) // the answer is kept as sent
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

// serveCachedAnswer answers r from the cache when it holds r's answer
// (true). It holds what the answer's pricing held the first time (or its
// bytes, if more) against the memory budget, so that the budget's limits
// are the same with the cache as without: a client at its share, or a
// server at its total, is refused as it would have been.
func (s *Server) serveCachedAnswer(w http.ResponseWriter, r *http.Request, key answerKey, hold *quota.Hold) bool {
	a, ok := s.answerCache.c.Get(key)
	if !ok {
		s.answerCache.misses.Add(1)
		return false
	}
	s.answerCache.hits.Add(1)
	err := hold.Grow(r.Context(), max(a.priced, int64(len(a.body))), s.cfg.AdmissionWait)
	if err != nil {
		s.refuse(w, r, err)
		return true
	}
	start := time.Now()
	noteOperation(r.Context(), a.operation)
	h := w.Header()
	for name, v := range a.header {
		h[name] = v
	}
	if etag := a.header.Get("ETag"); etag != "" {
		if _, ok := etagMatch(r.Header.Get("If-None-Match"), etag); ok {
			h.Del("Content-Type")
			h.Del("Content-Encoding")
			w.WriteHeader(http.StatusNotModified)
			s.observeCached(a, start)
			return true
		}
	}
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
func (s *Server) keepAnswer(r *http.Request, client string, key answerKey, status int, header http.Header, body []byte, hint *graph.CacheHint) {
	ri, _ := r.Context().Value(requestInfoKey{}).(*requestInfo)
	if status != http.StatusOK || hint.Volatile() || len(body) > maxCachedAnswer || ri == nil || !ri.cleanQuery.Load() {
		return
	}
	a := &cachedAnswer{header: http.Header{}, body: bytes.Clone(body)}
	for _, name := range keptHeaders {
		if v := header.Values(name); len(v) > 0 {
			a.header[http.CanonicalHeaderKey(name)] = slices.Clone(v)
		}
	}
	if op := ri.operation.Load(); op != nil {
		a.operation = *op
	}
	if adm, ok := r.Context().Value(turnKey{}).(*admission); ok {
		a.priced = adm.grown.Load()
	}
	// One client's answers take at most an eighth of the cache: past
	// that, its answers are built each time, and nobody's are pushed out.
	s.answerCache.c.AddFor(client, key, a)
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

// Flush implements http.Flusher for writers that assert it (gzhttp).
func (t *teeWriter) Flush() { _ = http.NewResponseController(t.ResponseWriter).Flush() }

// Unwrap is for http.ResponseController.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
