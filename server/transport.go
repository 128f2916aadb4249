package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// The HTTP transports, POST and GET, in place of gqlgen's. They follow
// GraphQL over HTTP as the graphql-http package's audit checks it
// (server/testdata/graphql-http): the answer's media type is negotiated
// from Accept (mediaType); a request error's answer has no "data"; a
// request that is not well-formed (a body that is not JSON, parameters of
// the wrong type, no query) is answered 400; one that is well-formed but
// does not parse, validate or fit its variables is answered 400 under
// application/graphql-response+json and 200 under application/json, which
// legacy clients read only when it is 200. Their messages say what is
// allowed (decode.go, explain.go).
//
// The POST transport also avoids two costs that show in the profiles of a
// server under load (docs/PERFORMANCE.md, "GraphQL API"): it decodes the
// body that serveGraphQL has read already instead of reading and copying
// it again, and it writes an answer's data as the executor made it instead
// of passing it through json.Marshal, which scans and compacts every byte
// once more.

const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// postTransport answers POST requests with a JSON body.
type postTransport struct {
	schema *ast.Schema // for explaining variable errors
}

// getTransport answers GET requests, their parameters in the query string.
type getTransport struct {
	schema *ast.Schema
}

var (
	_ graphql.Transport = postTransport{}
	_ graphql.Transport = getTransport{}
)

// requestBody is a request body serveGraphQL has read: its bytes, for
// postTransport, and a reader, for anyone else.
type requestBody struct {
	*bytes.Reader
	b []byte
}

func (*requestBody) Close() error { return nil }

// Supports implements graphql.Transport.
func (postTransport) Supports(r *http.Request) bool {
	if r.Header.Get("Upgrade") != "" || r.Method != http.MethodPost {
		return false
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == mediaJSON
}

// Do implements graphql.Transport.
func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	var body []byte
	if rb, ok := r.Body.(*requestBody); ok {
		body = rb.b
	} else {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			answerRequestError(w, r, exec, requestError("the request body could not be read"))
			return
		}
	}
	params, gerr := decodeBody(body)
	if gerr != nil {
		answerRequestError(w, r, exec, gerr)
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	run(w, r, exec, t.schema, params, `as the string "query" of the body`)
}

// Supports implements graphql.Transport.
func (getTransport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && r.Method == http.MethodGet
}

// Do implements graphql.Transport.
func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	start := graphql.Now()
	params, gerr := decodeQueryString(r.URL.RawQuery)
	if gerr != nil {
		answerRequestError(w, r, exec, gerr)
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	run(w, r, exec, t.schema, params, "in the query parameter")
}

// run executes a decoded request and writes the answer. where says how the
// query is sent, for the message when there is none.
func run(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, schema *ast.Schema, params *graphql.RawParams, where string) {
	ctx := r.Context()
	if gerr := checkParams(params, where); gerr != nil {
		answerRequestError(w, r, exec, gerr)
		return
	}
	params.Headers = r.Header
	rc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		errs = explain(schema, params, rc, errs)
	} else if gerr := checkIntRange(schema, rc.Operation, params.Variables); gerr != nil {
		errs = gqlerror.List{gerr}
	}
	if errs != nil {
		media := mediaType(r.Header.Get("Accept"))
		setContentType(w, media)
		status := operationErrorStatus(errs, media)
		if refusal, ok := refusalOf(errs); ok {
			// Refused by a share or a budget (the memory its answer
			// needs): the status says which, whatever the media type.
			status = refusalStatus(refusal.Code)
			if refusal.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(apierror.RetryAfterSeconds(refusal.RetryAfter)))
			}
		}
		w.WriteHeader(status)
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs))
		return
	}
	if r.Method == http.MethodGet && rc.Operation.Operation != ast.Query {
		w.Header().Set("Allow", http.MethodPost)
		answer(w, r, exec, graphql.WithOperationContext(ctx, rc), http.StatusMethodNotAllowed,
			&gqlerror.Error{Message: "GET answers queries only; send mutations with POST (and subscriptions over a websocket, or with Accept: text/event-stream)",
				Extensions: map[string]any{"code": string(apierror.BadUserInput)}})
		return
	}
	if rc.Operation.Operation == ast.Subscription {
		answer(w, r, exec, graphql.WithOperationContext(ctx, rc), http.StatusBadRequest,
			&gqlerror.Error{Message: "subscriptions run over a websocket at /graphql (subprotocol graphql-transport-ws) or as an event stream (this request with Accept: text/event-stream), not as one JSON answer; send queries and mutations here",
				Extensions: map[string]any{"code": string(apierror.BadUserInput)}})
		return
	}
	setContentType(w, mediaType(r.Header.Get("Accept")))
	responses, ctx := exec.DispatchOperation(ctx, rc)
	resp := responses(ctx)
	if status, retryAfter, ok := refusedAnswer(resp); ok {
		// Refused a turn to compute it (turns.go): no data, and the
		// status and Retry-After of the refusal.
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		w.WriteHeader(status)
	}
	writeResponse(w, resp)
}

// refusedAnswer says whether resp is a refusal made in place of an answer
// (no data, a RATE_LIMITED or UNAVAILABLE error with a retryAfter), and
// its status and Retry-After in seconds.
func refusedAnswer(resp *graphql.Response) (status, retryAfter int, ok bool) {
	if resp == nil || len(resp.Data) > 0 || len(resp.Errors) == 0 {
		return 0, 0, false
	}
	ext := resp.Errors[0].Extensions
	retry, ok := ext["retryAfter"].(int)
	if !ok {
		return 0, 0, false
	}
	switch ext["code"] {
	case string(apierror.RateLimited):
		return http.StatusTooManyRequests, retry, true
	case string(apierror.Unavailable):
		return http.StatusServiceUnavailable, retry, true
	}
	return 0, 0, false
}

// answerRequestError answers a request that is not a well-formed
// GraphQL-over-HTTP request: 400, whatever the media type.
func answerRequestError(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, gerr *gqlerror.Error) {
	answer(w, r, exec, r.Context(), http.StatusBadRequest, gerr)
}

func answer(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, ctx context.Context, status int, gerr *gqlerror.Error) {
	setContentType(w, mediaType(r.Header.Get("Accept")))
	w.WriteHeader(status)
	writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gerr}))
}

// operationErrorStatus is the status of a well-formed request that gqlgen
// refused before execution (it does not parse or validate, its variables
// do not fit, a limit refuses it): under application/json 200, as legacy
// clients need; else 400, since an answer without data is no success.
// A persisted query the server does not hold is 404, which Apollo's
// clients answer by sending the query, where a 400 would make them stop
// sending hashes.
func operationErrorStatus(errs gqlerror.List, media string) int {
	switch {
	case media == mediaJSON:
		return http.StatusOK
	case len(errs) > 0 && errs[0].Extensions["code"] == codePersistedQueryNotFound:
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// refusalOf returns the refusal among errs, when a share or a budget of
// the server refused the operation (a *quota.Refusal, or the *apierror.Error
// made of one: RATE_LIMITED, UNAVAILABLE, or a request too large for any
// share).
func refusalOf(errs gqlerror.List) (*apierror.Error, bool) {
	for _, err := range errs {
		var ref *quota.Refusal
		if errors.As(err, &ref) {
			return apierror.Refused(ref), true
		}
		var e *apierror.Error
		if errors.As(err, &e) && (e.Code == apierror.RateLimited || e.Code == apierror.Unavailable || e.Reason == apierror.ReasonMemoryPerRequest) {
			return e, true
		}
	}
	return nil, false
}

// setContentType sets the answer's media type, with its charset.
func setContentType(w http.ResponseWriter, media string) {
	if media == mediaJSON {
		w.Header().Set("Content-Type", mediaJSON+"; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", mediaGraphQLResponse+"; charset=utf-8")
	}
}

// mediaType negotiates the answer's media type from an Accept header
// (RFC 9110): of application/json and application/graphql-response+json,
// the acceptable one of higher quality; between equals, the one named
// rather than matched by a wildcard, then the one listed first. No Accept
// header, a bare wildcard (*/*) or nothing acceptable gives
// application/json, as GraphQL over HTTP asks for legacy clients.
func mediaType(accept string) string {
	switch accept {
	case "", "*/*", mediaJSON:
		return mediaJSON
	case mediaGraphQLResponse:
		return mediaGraphQLResponse
	}
	legacy := acceptance(accept, mediaJSON)
	gql := acceptance(accept, mediaGraphQLResponse)
	if gql.q > 0 && gql.better(legacy) {
		return mediaGraphQLResponse
	}
	return mediaJSON
}

// accepted is how an Accept header takes a media type: the quality and
// specificity of the most specific range that matches it (2 the type
// itself, 1 application/*, 0 */*), and that range's position.
type accepted struct {
	q           float64
	specificity int
	pos         int
}

func (a accepted) better(b accepted) bool {
	if a.q != b.q {
		return a.q > b.q
	}
	if a.specificity != b.specificity {
		return a.specificity > b.specificity
	}
	return a.pos < b.pos
}

func acceptance(accept, media string) accepted {
	best := accepted{specificity: -1}
	pos := 0
	for part := range strings.SplitSeq(accept, ",") {
		pos++
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		specificity := -1
		switch mt {
		case media:
			specificity = 2
		case "application/*":
			specificity = 1
		case "*/*":
			specificity = 0
		}
		if specificity <= best.specificity {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(s, 64); err != nil || q < 0 || q > 1 {
				continue
			}
		}
		best = accepted{q: q, specificity: specificity, pos: pos}
	}
	if best.specificity < 0 {
		return accepted{}
	}
	return best
}

// writeResponse writes an answer. The common one, data without errors or
// extensions, is written around the executor's own JSON. An answer without
// data, a request error, has no "data" entry: GraphQL leaves it out when
// execution never started (gqlgen writes "data": null).
func writeResponse(w io.Writer, resp *graphql.Response) {
	if len(resp.Errors) == 0 && len(resp.Extensions) == 0 && resp.Label == "" && resp.Path == nil &&
		resp.HasNext == nil && len(resp.Data) > 0 {
		_, _ = io.WriteString(w, `{"data":`)
		_, _ = w.Write(resp.Data)
		_, _ = io.WriteString(w, "}")
		return
	}
	var b []byte
	var err error
	if len(resp.Data) == 0 {
		b, err = json.Marshal(struct {
			Errors     gqlerror.List  `json:"errors,omitempty"`
			Extensions map[string]any `json:"extensions,omitempty"`
		}{resp.Errors, resp.Extensions})
	} else {
		b, err = json.Marshal(resp)
	}
	if err != nil {
		panic("marshalling a GraphQL response: " + err.Error())
	}
	_, _ = w.Write(b)
}
