package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// setupAnswers is a server over a store where N=8 is done, with opts.
func setupAnswers(t *testing.T, opts ...func(*server.Config)) *apitest.Bundle {
	t.Helper()
	st := sqlitetest.OpenTemp(t)
	storetest.Load(t.Context(), t, st, 8, solver.DefaultChunkDepth(8))
	return apitest.Setup(t, append([]func(*server.Config){func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
	}}, opts...)...)
}

const page8 = `{ solutions(n: 8, first: 3, after: null) { totalCount edges { cursor node { placement } } pageInfo { hasNextPage endCursor } } }`

// stats returns the answer cache's hits and misses.
func stats(b *apitest.Bundle) [2]int64 {
	h, m := b.Server.AnswerCacheStats()
	return [2]int64{h, m}
}

// TestAnswerCacheServesImmutableAnswers: a page of a finished board asked
// again is the same bytes, from the cache; answers that may change, asked
// with a token, or in another media type are not served from another's
// entry.
func TestAnswerCacheServesImmutableAnswers(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t)

	first := b.Post(t, apitest.Request{Query: page8})
	if first.Status != 200 || first.Code() != "" || !strings.Contains(string(first.Raw), `"totalCount":"92"`) {
		t.Fatalf("first page: %d %s", first.Status, first.Raw)
	}
	if got := stats(b); got != [2]int64{0, 1} {
		t.Fatalf("after the first page: hits, misses %v; want [0 1]", got)
	}
	again := b.Post(t, apitest.Request{Query: page8})
	if got := stats(b); got != [2]int64{1, 1} {
		t.Fatalf("after the same page again: hits, misses %v; want [1 1]", got)
	}
	if string(again.Raw) != string(first.Raw) || again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Errorf("cached answer differs:\n%s %s\n%s %s", first.Header.Get("Content-Type"), first.Raw, again.Header.Get("Content-Type"), again.Raw)
	}

	// Another media type is another entry, answered in its own type.
	plain := b.Post(t, apitest.Request{Query: page8}, "Accept", "application/json")
	if got := stats(b); got != [2]int64{1, 2} || !strings.HasPrefix(plain.Header.Get("Content-Type"), "application/json") {
		t.Errorf("Accept: application/json: hits, misses %v, Content-Type %q; want [1 2] and application/json", got, plain.Header.Get("Content-Type"))
	}

	// With a token the answer may depend on it: never from the cache.
	for range 2 {
		b.Post(t, apitest.Request{Query: page8}, "Authorization", "Bearer x")
	}
	if got := stats(b); got != [2]int64{1, 2} {
		t.Errorf("with Authorization: hits, misses %v; want [1 2] (not looked up)", got)
	}

	// A board nobody computed may change (its state, its source): its
	// answers are built each time.
	const unknown = `{ count(n: 9) { total state source } }`
	for range 2 {
		if r := b.Post(t, apitest.Request{Query: unknown}); r.Status != 200 || !strings.Contains(string(r.Raw), `"state":"UNKNOWN"`) {
			t.Fatalf("count(n: 9): %d %s", r.Status, r.Raw)
		}
	}
	if got := stats(b); got != [2]int64{1, 4} {
		t.Errorf("a volatile answer twice: hits, misses %v; want [1 4] (two misses, nothing kept)", got)
	}

	// An answer with errors is not kept.
	for range 2 {
		b.Post(t, apitest.Request{Query: `{ solutions(n: 8, first: 100000) { totalCount } }`})
	}
	if got := stats(b); got != [2]int64{1, 6} {
		t.Errorf("an error twice: hits, misses %v; want [1 6]", got)
	}
}

// TestAnswerCacheGET: a GET answer from the cache keeps its ETag and
// Cache-Control, and If-None-Match gets 304 from it.
func TestAnswerCacheGET(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t)
	first := b.Get(t, apitest.Request{Query: page8})
	etag := first.Header.Get("ETag")
	if first.Status != 200 || etag == "" || !strings.HasPrefix(first.Header.Get("Cache-Control"), "public") {
		t.Fatalf("first GET: %d ETag %q Cache-Control %q", first.Status, etag, first.Header.Get("Cache-Control"))
	}
	again := b.Get(t, apitest.Request{Query: page8})
	if again.Header.Get("ETag") != etag || again.Header.Get("Cache-Control") != first.Header.Get("Cache-Control") || string(again.Raw) != string(first.Raw) {
		t.Errorf("cached GET: ETag %q Cache-Control %q; want the first's", again.Header.Get("ETag"), again.Header.Get("Cache-Control"))
	}
	notModified := b.Get(t, apitest.Request{Query: page8}, "If-None-Match", etag)
	if notModified.Status != http.StatusNotModified || len(notModified.Raw) != 0 {
		t.Errorf("If-None-Match from the cache: %d %q; want 304 and no body", notModified.Status, notModified.Raw)
	}
	if got := stats(b); got != [2]int64{2, 1} {
		t.Errorf("hits, misses %v; want [2 1]", got)
	}
}

// TestAnswerCacheKeepsTheRateLimit: an answer the cache holds is still
// counted against its client's rate.
func TestAnswerCacheKeepsTheRateLimit(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t, func(c *server.Config) { c.RateLimit, c.RateBurst = 0.01, 3 })
	var codes []int
	for range 5 {
		codes = append(codes, b.Post(t, apitest.Request{Query: page8}).Status)
	}
	if want := []int{200, 200, 200, 429, 429}; !slices.Equal(codes, want) {
		t.Errorf("statuses %v; want %v (the burst, then refused though cached)", codes, want)
	}
}

// TestAnswerCacheSharedByClients: a client asking for ever new answers
// keeps at most its share of the cache, and cannot push out another
// client's answers.
func TestAnswerCacheSharedByClients(t *testing.T) {
	t.Parallel()
	// 16 KiB: a share of 2 KiB, about three pages of N=8 (each ~400 bytes
	// of answer and 400 of bookkeeping).
	b := setupAnswers(t, func(c *server.Config) { c.AnswerCacheBytes = 16 << 10 })
	honest := from(t, b, "127.0.0.51")
	honest.Post(t, apitest.Request{Query: page8})
	attacker := from(t, b, "127.0.0.52")
	for first := 1; first <= 80; first++ {
		q := fmt.Sprintf(`{ solutions(n: 8, first: %d) { totalCount } count(n: 8) { total } }`, first)
		if r := attacker.Post(t, apitest.Request{Query: q}); r.Status != 200 {
			t.Fatalf("attacker's request %d: %d %s", first, r.Status, r.Raw)
		}
	}
	before := stats(b)
	honest.Post(t, apitest.Request{Query: page8})
	if got := stats(b); got[0] != before[0]+1 {
		t.Errorf("the honest client's page after 80 answers of another: hits, misses %v → %v; want a hit", before, got)
	}
}

// TestPageCacheSharedByClients: the page cache is shared the same way: a
// client paging through ever new pages cannot push out another's page.
func TestPageCacheSharedByClients(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := 0
	// 16 KiB of pages: an eighth is about five pages of three solutions.
	b := setupAnswers(t, func(c *server.Config) {
		c.AnswerCacheBytes = 0
		c.Graph.PageCacheBytes = 16 << 10
		c.Graph.OnCacheLookup = func(cache string, hit bool) {
			if cache == "page" && hit {
				mu.Lock()
				hits++
				mu.Unlock()
			}
		}
	})
	hitsNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return hits
	}
	honest := from(t, b, "127.0.0.53")
	honest.Post(t, apitest.Request{Query: page8})
	attacker := from(t, b, "127.0.0.54")
	// 60 pages of three, each after another solution: 60 windows, about
	// twice the cache.
	var cursors struct {
		Solutions struct{ Edges []struct{ Cursor string } }
	}
	attacker.Query(t, `{ solutions(n: 8, last: 60) { edges { cursor } } }`, nil, &cursors)
	for i, e := range cursors.Solutions.Edges {
		r := attacker.Post(t, apitest.Request{Query: `query($c: String) { solutions(n: 8, first: 3, after: $c) { edges { cursor } } }`, Variables: map[string]any{"c": e.Cursor}})
		if r.Status != 200 || r.Code() != "" {
			t.Fatalf("attacker's page %d: %d %s", i, r.Status, r.Raw)
		}
	}
	before := hitsNow()
	honest.Post(t, apitest.Request{Query: page8})
	if got := hitsNow(); got != before+1 {
		t.Errorf("the honest client's page after 60 pages of another: %d page cache hits → %d; want one more", before, got)
	}
}

// TestAnswerCacheOff: AnswerCacheBytes 0 turns it off.
func TestAnswerCacheOff(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t, func(c *server.Config) { c.AnswerCacheBytes = 0 })
	for range 2 {
		b.Post(t, apitest.Request{Query: page8})
	}
	if got := stats(b); got != [2]int64{0, 0} {
		t.Errorf("hits, misses %v with the cache off; want none", got)
	}
}
