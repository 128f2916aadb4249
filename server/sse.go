package server

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens/internal/apierror"
)

// sseTransport serves GraphQL over Server-Sent Events, the distinct
// connections mode of the graphql-sse protocol
// (https://github.com/enisdenjo/graphql-sse/blob/master/PROTOCOL.md): a
// POST (or, for EventSource, a GET) with Accept: text/event-stream runs
// one operation and streams its results as "next" events, then
// "complete"; closing the connection ends it. Queries and mutations are
// streams of one result; GET runs queries and subscriptions only.
//
// It replaces gqlgen's transport.SSE, which quotes the request body back
// in its errors, writes without deadlines (a client that stops reading
// holds its stream until WriteTimeout, which cuts every honest stream
// too), lets its keep-alive write after the handler returned, and sends
// "complete" when the server shuts down, as if the stream had ended.
//
// Every stream is bounded as a websocket is: in number, per client and
// in all (the excess refused before the stream starts); by the rate limit
// (serveGraphQL takes a token per request) and its memory, held for its
// life as a websocket operation's is; in time, a stall of the client
// (SSEWriteTimeout for each write) and its whole life (SSEMaxDuration);
// a comment every SSEKeepAlive keeps it through proxies and finds a peer
// gone. It ends without "complete" when its life is over or the server
// shuts down, which tells the client to subscribe again.
type sseTransport struct {
	s      *Server
	schema *ast.Schema // for explaining variable errors
}

var _ graphql.Transport = (*sseTransport)(nil)

const mediaEventStream = "text/event-stream"

// Why a stream ended before its operation did (context.Cause).
var (
	errStreamShutdown = errors.New("the server is shutting down; subscribe again")
	errStreamLifetime = errors.New("the stream reached its longest life; subscribe again")
	errStreamStalled  = errors.New("the client did not take the stream's events in time")
)

// wantsEventStream says whether r asks for an event stream: a POST or a
// GET whose Accept takes text/event-stream.
func wantsEventStream(r *http.Request) bool {
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		return false
	}
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != mediaEventStream {
			continue
		}
		if q, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(q, 64); err != nil || v <= 0 {
				continue
			}
		}
		return true
	}
	return false
}

// Supports implements graphql.Transport: serveGraphQL sends it what
// wantsEventStream takes.
func (t *sseTransport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && wantsEventStream(r)
}

// Do implements graphql.Transport: it admits the request, runs its
// operation and streams the results until the operation ends, the client
// goes, the stream's life ends or the server shuts down.
func (t *sseTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	s := t.s
	// The client's share of the streams, then the server's total: refused
	// with a status, so that the graphql-sse client retries later.
	client := s.client(r)
	slot, err := s.streams.Take(client, 1)
	if err != nil {
		s.refuse(w, r, err)
		return
	}
	defer slot.Release()
	// The request holds its memory for the stream's life, as a websocket
	// operation does: its body first, then its document and answers as
	// its pricing grows the hold.
	hold, err := s.admit(r, client)
	if err != nil {
		s.refuse(w, r, err)
		return
	}
	defer hold.Release()
	body := getBuffer()
	defer putBuffer(body)
	if !s.readRequest(w, r, body) {
		return
	}
	start := graphql.Now()
	var params *graphql.RawParams
	var gerr *gqlerror.Error
	where := `as the string "query" of the body`
	if r.Method == http.MethodPost {
		params, gerr = decodeBody(body.Bytes())
	} else {
		params, gerr = decodeQueryString(r.URL.RawQuery)
		where = "in the query parameter"
	}
	if gerr == nil {
		gerr = checkParams(params, where)
	}
	if gerr != nil {
		// Not a GraphQL request at all: answered as GraphQL over HTTP
		// answers it, 400 with the error.
		s.fail(w, r, http.StatusBadRequest, apierror.BadUserInput, "", gerr.Message)
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	// The stream's context: ended by the client going, Server.Close, or
	// the stream's life. Not a deadline: queries and mutations get their
	// RequestTimeout from newGraphQL only when their context has none.
	ctx, cancel := context.WithCancelCause(s.withAdmission(r.Context(), hold))
	defer cancel(nil)
	stopShutdown := context.AfterFunc(s.closing, func() { cancel(errStreamShutdown) })
	defer stopShutdown()
	lifetime := time.AfterFunc(s.cfg.SSEMaxDuration, func() { cancel(errStreamLifetime) })
	defer lifetime.Stop()

	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		errs = explain(t.schema, params, rc, errs)
	} else if gerr := checkIntRange(t.schema, rc.Operation, params.Variables); gerr != nil {
		errs = gqlerror.List{gerr}
	}
	if refusal, ok := refusalOf(errs); ok && refusal.Code != apierror.BadUserInput {
		// A share or a budget refused it (the memory its answer needs):
		// a status and Retry-After, which the client retries after.
		s.refuse(w, r, refusal)
		return
	}
	if errs == nil && r.Method == http.MethodGet && rc.Operation.Operation == ast.Mutation {
		w.Header().Set("Allow", http.MethodPost)
		s.fail(w, r, http.StatusMethodNotAllowed, apierror.BadUserInput, "",
			"GET runs queries and subscriptions only; send mutations with POST")
		return
	}

	// The rest of the connection is the stream's: each write moves the
	// write deadline, which WriteTimeout would otherwise hold at the
	// request's start. (Once the request is read, net/http reads on in the
	// background without a deadline, so a client that closes its end
	// ends the request's context.)
	st := &sseStream{w: w, rc: http.NewResponseController(w), timeout: s.cfg.SSEWriteTimeout, cancel: cancel}
	h := w.Header()
	h.Set("Content-Type", mediaEventStream)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would hold the events back
	w.WriteHeader(http.StatusOK)
	if !st.write([]byte(":\n\n")) {
		return
	}

	if errs != nil {
		// Refused before execution (parse, validation, limits): the
		// protocol sends the errors as a "next" event, since a status
		// would tell the client only that the stream failed.
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		if st.next(resp) {
			st.event("complete")
		}
		return
	}

	var wg sync.WaitGroup
	keepCtx, cancelKeepAlive := context.WithCancel(ctx)
	wg.Go(func() { st.keepAlive(keepCtx, s.cfg.SSEKeepAlive) })
	// stopKeepAlive returns once the keep-alive has written its last
	// comment: the stream's own last words come after it.
	stopKeepAlive := func() {
		cancelKeepAlive()
		wg.Wait()
	}
	defer stopKeepAlive()

	// The operation's context may end with its operation (a query's
	// time budget): only the stream's says whether the stream was cut.
	responses, opCtx := exec.DispatchOperation(ctx, rc)
	for {
		resp := responses(opCtx)
		if resp == nil {
			break
		}
		if !st.next(resp) {
			return
		}
	}
	stopKeepAlive()
	if cause := context.Cause(ctx); cause != nil || s.closing.Err() != nil {
		// The stream did not end, it was cut: no "complete", so that the
		// client subscribes again; a comment says why, for people
		// reading the stream. The server's own context is checked too,
		// since the stream's learns of Close a moment after the
		// subscriptions' hub does.
		switch {
		case s.closing.Err() != nil:
			cause = errStreamShutdown
		case !errors.Is(cause, errStreamLifetime):
			return // the client went, or stopped reading
		}
		st.write([]byte(": " + cause.Error() + "\n\n"))
		return
	}
	st.event("complete")
}

// sseStream writes one stream's events and comments, one at a time, each
// flushed at once and given the write timeout to go out.
type sseStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	cancel  context.CancelCauseFunc // ends the stream when a write fails

	mu     sync.Mutex
	broken bool // a write failed: nothing more is written
}

// write writes b whole and flushes it within the write timeout; false
// when it could not, which ends the stream.
func (st *sseStream) write(b []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.broken {
		return false
	}
	err := st.rc.SetWriteDeadline(time.Now().Add(st.timeout))
	if errors.Is(err, http.ErrNotSupported) {
		err = nil // a writer without deadlines (a test's recorder)
	}
	if err == nil {
		_, err = st.w.Write(b)
	}
	if err == nil {
		err = st.rc.Flush()
	}
	if err != nil {
		st.broken = true
		st.cancel(errStreamStalled)
		return false
	}
	return true
}

// next writes a "next" event with resp as its data: JSON on one line.
func (st *sseStream) next(resp *graphql.Response) bool {
	b := getBuffer()
	defer putBuffer(b)
	b.WriteString("event: next\ndata: ")
	writeResponse(b, resp)
	b.WriteString("\n\n")
	return st.write(b.Bytes())
}

// event writes an event without data. Its empty "data:" line makes
// EventSource dispatch it, which it does not for an event without one.
func (st *sseStream) event(name string) bool {
	return st.write(fmt.Appendf(nil, "event: %s\ndata:\n\n", name))
}

// keepAlive writes a comment every interval until ctx ends: proxies that
// drop silent connections keep the stream, and the write's deadline finds
// a peer that is gone.
func (st *sseStream) keepAlive(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if !st.write([]byte(":\n\n")) {
				return
			}
		}
	}
}
