package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/internal/service"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/server"
)

// These tests speak GraphQL over Server-Sent Events (the graphql-sse
// protocol's distinct connections mode) to the real server over real
// HTTP: subscriptions and single results, the requests refused before
// a stream starts, and the stream's bounds in time.

// setupPrecompute starts the real server over a new SQLite store with the
// real precompute engine behind its mutations (one worker, started) and
// token as the admin token, as opts change the server's configuration.
func setupPrecompute(t *testing.T, token string, opts ...func(*server.Config)) *apitest.Bundle {
	t.Helper()
	cfg := precompute.DefaultConfig()
	cfg.Workers, cfg.JobTimeout, cfg.Logger = 1, time.Minute, slog.New(slog.DiscardHandler)
	st, j, err := service.Open(t.Context(), service.Database{Path: filepath.Join(t.TempDir(), "nqueens.db")}, true, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b := apitest.Setup(t, append([]func(*server.Config){func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored, c.Graph.Precompute, c.Graph.AdminToken = st, st, j, token
		c.Graph.PollInterval = 50 * time.Millisecond
	}}, opts...)...)
	if err := j.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Shutdown() })
	return b
}

// boardProgress is the data of a boardProgress event.
type boardProgress struct {
	BoardProgress struct {
		N     int
		State string
		Total json.Number
	}
}

// TestSSESubscriptionFollowsPrecompute: a boardProgress subscription over
// an event stream sees the board UNKNOWN, then, once the precompute
// mutation asks for it and the worker computes it, its states up to DONE
// with the published count, then "complete".
func TestSSESubscriptionFollowsPrecompute(t *testing.T) {
	t.Parallel()
	const token, n = "sse-token", 8
	b := setupPrecompute(t, token)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s := b.Stream(t, ctx, apitest.Request{Query: `subscription($n: Int!) { boardProgress(n: $n) { n state total } }`, Variables: map[string]any{"n": n}})
	var m boardProgress
	if !s.Next(t, &m) || m.BoardProgress.State != "UNKNOWN" || m.BoardProgress.N != n {
		t.Fatalf("first event: %+v; want board %d UNKNOWN", m, n)
	}
	r := b.Post(t, apitest.Request{Query: `mutation($n: Int!) { precompute(n: $n) { state } }`, Variables: map[string]any{"n": n}}, "Authorization", "Bearer "+token)
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("precompute: %d %s", r.Status, r.Raw)
	}
	var states []string
	for s.Next(t, &m) {
		states = append(states, m.BoardProgress.State)
	}
	if len(states) == 0 || states[len(states)-1] != "DONE" {
		t.Fatalf("states after the precompute: %v; want them to end with DONE, then complete", states)
	}
	if want := fmt.Sprint(oeis.MustLoad(t)[n].Total); m.BoardProgress.Total.String() != want {
		t.Fatalf("DONE with total %s; the published count is %s", m.BoardProgress.Total, want)
	}
	t.Logf("UNKNOWN, then %v, then complete", states)
	if _, err := s.ReadEvent(); err != io.EOF {
		t.Fatalf("after complete: %v; want the end of the stream", err)
	}
}

// TestSSEQueries: a query over an event stream is one "next" event with
// the answer a POST gets, then "complete"; a document that does not
// validate is a stream too, its errors in the "next" event (as the
// protocol asks); a request that is not GraphQL is answered 400 before any
// stream; GET streams queries and subscriptions, and refuses mutations.
func TestSSEQueries(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const n = 9
	want := fmt.Sprint(oeis.MustLoad(t)[n].Total)

	s := b.Stream(t, ctx, apitest.Request{Query: `query($n: Int!) { count(n: $n) { total } }`, Variables: map[string]any{"n": n}})
	var c struct{ Count struct{ Total json.Number } }
	if !s.Next(t, &c) || c.Count.Total.String() != want {
		t.Fatalf("count(n: %d) over an event stream: %+v; want total %s\n%s", n, c, want, b.Logs)
	}
	if s.Next(t, &c) {
		t.Fatal("a second result for a query")
	}

	s = b.Stream(t, ctx, apitest.Request{Query: `{ count(n: 9) { nope } }`})
	e := nextEvent(t, s)
	if e.Name != "next" || !strings.Contains(e.Data, `"errors"`) || !strings.Contains(e.Data, "nope") || strings.Contains(e.Data, `"data"`) {
		t.Fatalf("an invalid document: %+v; want a next event with its errors", e)
	}
	if e := nextEvent(t, s); e.Name != "complete" {
		t.Fatalf("after the errors: %+v; want complete", e)
	}

	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"not JSON", `{"query": `, http.StatusBadRequest, "the request body"},
		{"no query", `{}`, http.StatusBadRequest, "the request has no query"},
		{"too large", `{"query": "` + strings.Repeat(" ", 1<<20) + `{ __typename }"}`, http.StatusRequestEntityTooLarge, "larger than"},
	} {
		r := b.Raw(t, http.MethodPost, b.URL, strings.NewReader(tc.body), "Content-Type", "application/json", "Accept", "text/event-stream")
		if r.Status != tc.status || !strings.Contains(r.Message(), tc.says) || r.Code() != string(apierror.BadUserInput) {
			t.Errorf("%s: %d %s; want %d saying %q", tc.name, r.Status, r.Raw, tc.status, tc.says)
		}
	}

	get := func(query string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"?"+url.Values{"query": {query}}.Encode(), nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := b.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := get(`subscription { boardProgress(n: 6) { state } }`)
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), "event: next\ndata: {\"data\":{\"boardProgress\":{\"state\":\"UNKNOWN\"}}}\n\nevent: complete\ndata:\n\n") {
		t.Fatalf("GET a subscription (no store: one result): %d %q", resp.StatusCode, raw)
	}
	resp = get(`mutation { precompute(n: 4) { n } }`)
	raw, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(raw), "send mutations with POST") {
		t.Fatalf("GET a mutation: %d %s", resp.StatusCode, raw)
	}
}

// nextEvent reads the next event of s, skipping comments.
func nextEvent(t *testing.T, s *apitest.EventStream) apitest.Event {
	t.Helper()
	for {
		e, err := s.ReadEvent()
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		if e.Name != "" {
			return e
		}
	}
}

// TestSSEKeepAliveAndLifetime: a stream with nothing to say gets a
// comment every keep-alive interval; it outlives the connection's read
// and write timeouts (a quarter and half of its life here), which bound
// requests, not streams; at its longest life it ends without "complete",
// a comment saying why, and its share is free again.
func TestSSEKeepAliveAndLifetime(t *testing.T) {
	t.Parallel()
	const keepAlive, life = 100 * time.Millisecond, 2 * time.Second
	b := setupStore(t, func(c *server.Config) {
		c.SSEKeepAlive, c.SSEMaxDuration = keepAlive, life
		c.ReadTimeout, c.RequestTimeout, c.WriteTimeout = life/4, life/4, life/2
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	s := b.Stream(t, ctx, apitest.Request{Query: endless})
	if e := nextEvent(t, s); e.Name != "next" {
		t.Fatalf("first: %+v", e)
	}
	comments, last := 0, ""
	for {
		e, err := s.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		if e.Name != "" {
			t.Fatalf("an event on a board nobody computes: %+v", e)
		}
		comments += len(e.Comments)
		last = e.Comments[len(e.Comments)-1]
	}
	took := time.Since(start)
	t.Logf("the stream ended after %s (longest life %s) with %d comments, the last %q", took.Round(time.Millisecond), life, comments, last)
	if took < life || took > life+5*time.Second {
		t.Errorf("ended after %s; want its longest life, %s", took, life)
	}
	if comments < int(life/keepAlive)/2 {
		t.Errorf("%d comments in %s; want one every %s", comments, took, keepAlive)
	}
	if !strings.Contains(last, "longest life; subscribe again") {
		t.Errorf("last comment %q; want it to say why the stream ended", last)
	}
	eventually.True(t, 5*time.Second, func() string {
		if held := pool(t, b, apierror.PoolStreams).Held(); held > 0 {
			return fmt.Sprintf("%d streams held after the stream ended", held)
		}
		return ""
	})
}

// TestSSEShutdown: Server.Close ends every stream at once, without
// "complete" (the client is to subscribe again, elsewhere).
func TestSSEShutdown(t *testing.T) {
	t.Parallel()
	b := setupStore(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	streams := make([]*apitest.EventStream, 3)
	for i := range streams {
		streams[i] = b.Stream(t, ctx, apitest.Request{Query: endless})
		if e := nextEvent(t, streams[i]); e.Name != "next" {
			t.Fatalf("first: %+v", e)
		}
	}
	start := time.Now()
	b.Server.Close()
	for i, s := range streams {
		var comments []string
		for {
			e, err := s.ReadEvent()
			if err == io.EOF {
				break
			}
			if err != nil || e.Name != "" {
				t.Fatalf("stream %d after Close: %+v, %v; want comments, then the end", i, e, err)
			}
			comments = append(comments, e.Comments...)
		}
		if len(comments) == 0 || !strings.Contains(comments[len(comments)-1], "shutting down") {
			t.Errorf("stream %d ended with comments %q; want one saying the server is shutting down", i, comments)
		}
	}
	took := time.Since(start)
	t.Logf("%d streams ended %s after Close", len(streams), took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("the streams ended %s after Close", took)
	}
}

// TestSSEStreamsTotalAndRateLimit: with 2 streams a client and 4 in all,
// a client at its share has its next stream refused 429
// STREAMS_PER_CLIENT; two clients at their shares fill the total, and a
// third client's stream is refused 503 STREAMS_TOTAL, both with
// Retry-After, before any stream starts; the third is served once one
// stream closes. Each stream is a request for the rate limit: past its
// burst a client's next stream is refused 429 RATE_LIMITED.
func TestSSEStreamsTotalAndRateLimit(t *testing.T) {
	t.Parallel()
	b := setupStore(t, func(c *server.Config) {
		c.SSEMaxStreams, c.SSEMaxStreamsPerClient = 4, 2
		c.RateLimit, c.RateBurst = 0.01, 5
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	refused := func(c *apitest.Bundle, status int, code, says string) {
		t.Helper()
		s, err := c.OpenStream(ctx, apitest.Request{Query: endless})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var answer apitest.Response
		body, _ := io.ReadAll(s.Resp.Body)
		if err := json.Unmarshal(body, &answer); err != nil || s.Resp.StatusCode != status || s.Resp.Header.Get("Retry-After") == "" ||
			answer.Code() != code || !strings.Contains(answer.Message(), says) {
			t.Errorf("a stream past a bound: %d, Retry-After %q: %s; want %d %s saying %q", s.Resp.StatusCode, s.Resp.Header.Get("Retry-After"), body, status, code, says)
		}
	}
	open := func(c *apitest.Bundle) *apitest.EventStream {
		t.Helper()
		s := c.Stream(t, ctx, apitest.Request{Query: endless})
		if e := nextEvent(t, s); e.Name != "next" {
			t.Fatalf("first: %+v", e)
		}
		return s
	}
	first, second, third := from(t, b, "127.0.0.41"), from(t, b, "127.0.0.42"), from(t, b, "127.0.0.43")
	held := []*apitest.EventStream{open(first), open(first)}
	refused(first, http.StatusTooManyRequests, "RATE_LIMITED", "your address has 2 event streams open")
	held = append(held, open(second), open(second))
	refused(third, http.StatusServiceUnavailable, "UNAVAILABLE", "the server has 4 event streams open")
	held[0].Close()
	eventually.True(t, 10*time.Second, func() string {
		if n := pool(t, b, apierror.PoolStreams).Held(); n > 3 {
			return fmt.Sprintf("%d streams held after one closed", n)
		}
		return ""
	})
	open(third)
	// The first client has made 3 requests of its burst of 5: two more
	// reach the streams' total, the next is past its rate limit.
	for range 2 {
		refused(first, http.StatusServiceUnavailable, "UNAVAILABLE", "the server has 4 event streams open")
	}
	refused(first, http.StatusTooManyRequests, "RATE_LIMITED", "too many requests from your address")
}
