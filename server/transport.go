package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// postTransport is gqlgen's POST transport (transport.POST, with
// UseGrapQLResponseJsonByDefault) without two costs that show in the
// profiles of a server under load (docs/PERFORMANCE.md, "GraphQL API"): it
// decodes the body that serveGraphQL has read already instead of reading
// and copying it again, and it writes an answer's data as the executor
// made it instead of passing it through json.Marshal, which scans and
// compacts every byte once more. Content types and status codes are
// gqlgen's.
type postTransport struct{}

var _ graphql.Transport = postTransport{}

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
	return err == nil && mt == "application/json"
}

// Do implements graphql.Transport.
func (postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := r.Context()
	contentType := gqlResponseType(r)
	w.Header().Set("Content-Type", contentType)
	start := graphql.Now()

	var body []byte
	if rb, ok := r.Body.(*requestBody); ok {
		body = rb.b
	} else {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("could not read request body: %+v", err)}))
			return
		}
	}
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, exec.DispatchError(ctx, gqlerror.List{gqlerror.Errorf("json request body could not be decoded: %+v body:%s", err, body)}))
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}

	rc, opErr := exec.CreateOperationContext(ctx, &params)
	if opErr != nil {
		status := http.StatusOK
		if errcode.GetErrorKind(opErr) == errcode.KindProtocol {
			status = http.StatusUnprocessableEntity // serveGraphQL answers 400
			if contentType == "application/graphql-response+json" {
				status = http.StatusBadRequest
			}
		}
		w.WriteHeader(status)
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, rc), opErr))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, rc)
	writeResponse(w, responses(ctx))
}

// gqlResponseType is the media type gqlgen answers with:
// application/graphql-response+json unless the client asks for
// application/json.
func gqlResponseType(r *http.Request) string {
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json":
			return "application/json"
		case "application/graphql-response+json", "application/*", "*/*":
			return "application/graphql-response+json"
		}
	}
	return "application/graphql-response+json"
}

// writeResponse writes an answer. The common one, data without errors or
// extensions, is written around the executor's own JSON; the rest goes
// through json.Marshal as in gqlgen.
func writeResponse(w io.Writer, resp *graphql.Response) {
	if len(resp.Errors) == 0 && len(resp.Extensions) == 0 && resp.Label == "" && resp.Path == nil &&
		resp.HasNext == nil && len(resp.Data) > 0 {
		_, _ = io.WriteString(w, `{"data":`)
		_, _ = w.Write(resp.Data)
		_, _ = io.WriteString(w, "}")
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		panic("marshalling a GraphQL response: " + err.Error())
	}
	_, _ = w.Write(b)
}
