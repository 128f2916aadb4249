package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/solver"
)

// exportMedia are the exports served over HTTP, by file extension, with
// their media types: the formats notebooks read from a URL.
var exportMedia = map[string]struct {
	format    export.Format
	mediaType string
}{
	"csv":    {export.CSV, "text/csv; charset=utf-8; header=present"},
	"ndjson": {export.NDJSON, "application/x-ndjson"},
}

// serveExport answers GET /export/{n}.csv and /export/{n}.ndjson
// (?unique=true, ?where=q0.3,e1.1): every solution of N, or those the
// filter keeps, streamed in lexicographic order (package export).
//
// It is public, so it is bounded: the rate limit of /graphql applies;
// each client runs ExportMaxPerClient exports at once (429 past it) and
// all clients ExportMaxConcurrent (503 past it); a board the
// store does not hold is enumerated only up to ExportSolverMaxN; the
// whole export takes at most ExportMaxDuration; and instead of
// WriteTimeout, which would cut a long download that is going well, each
// block written moves the write deadline ExportStallTimeout ahead, so
// that only a client that stops reading is dropped. A client that goes
// away cancels the request's context, which stops the query or the
// enumeration at once.
func (s *Server) serveExport(w http.ResponseWriter, r *http.Request) {
	client := s.client(r)
	if s.limiter != nil {
		if ok, retryAfter := s.limiter.allow(client); !ok {
			s.refuseRateLimited(w, r, retryAfter)
			return
		}
	}
	req, err := parseExport(r.PathValue("file"), r.URL.Query())
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, apierror.BadUserInput, "", err.Error())
		return
	}
	running, err := s.exports.Take(client, 1)
	if err != nil {
		s.refuse(w, r, err)
		return
	}
	defer running.Release()

	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ExportMaxDuration)
	defer cancel()
	stop := context.AfterFunc(s.closing, cancel) // the server shuts down
	defer stop()
	planCtx, planned := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	e, err := export.Plan(planCtx, s.cfg.ExportStore, req, s.cfg.ExportSolverMaxN)
	planned()
	if err != nil {
		s.failWith(w, r, "export", err)
		return
	}

	stream, compressed, _ := s.compress.handler(client, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.streamExport(ctx, w, r, e, req)
	}))
	defer compressed()
	stream.ServeHTTP(w, r)
}

// streamExport writes the headers and the rows of a planned export.
func (s *Server) streamExport(ctx context.Context, w http.ResponseWriter, r *http.Request, e *export.Export, req export.Request) {
	h := w.Header()
	h.Set("Content-Type", exportMediaType(req.Format))
	h.Set("Content-Disposition", `attachment; filename="`+exportFileName(req)+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	// The store's boards never change once done, but a board may become
	// stored later: the answer is the same, its source not.
	h.Set("Cache-Control", "no-cache")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK) // the headers a GET would have, no export
		return
	}
	out := &streamWriter{w: w, rc: http.NewResponseController(w), stall: s.cfg.ExportStallTimeout}
	if err := out.extend(); err != nil {
		return
	}
	w.WriteHeader(http.StatusOK)
	if _, err := e.WriteTo(ctx, out); err != nil {
		// The status is sent: all that is left is to end the response
		// short, so that the client sees a broken transfer, not a
		// complete file.
		if ctx.Err() == nil && !errors.Is(err, errClientGone) {
			s.cfg.Logger.Error("export", "n", req.N, "error", err)
		}
		panic(http.ErrAbortHandler)
	}
}

// errClientGone marks a write that failed: the client left or stalled.
var errClientGone = errors.New("export: the client stopped reading")

// streamWriter writes an export to the client, block by block, each
// flushed at once and given ExportStallTimeout to go out.
type streamWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

// extend moves the connection's write deadline stall ahead.
func (s *streamWriter) extend() error {
	err := s.rc.SetWriteDeadline(time.Now().Add(s.stall))
	if errors.Is(err, http.ErrNotSupported) {
		return nil // a writer without deadlines (a test's recorder)
	}
	return err
}

func (s *streamWriter) Write(p []byte) (int, error) {
	if err := s.extend(); err != nil {
		return 0, errors.Join(errClientGone, err)
	}
	n, err := s.w.Write(p)
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		return n, errors.Join(errClientGone, err)
	}
	return n, nil
}

// parseExport reads an export's file name ({n}.csv, {n}.ndjson) and its
// query parameters (unique, where), saying what is allowed when they are
// wrong. The board and the filter are checked by export.Plan.
func parseExport(file string, q url.Values) (export.Request, error) {
	name, ext, _ := strings.Cut(file, ".")
	media, ok := exportMedia[ext]
	n, err := strconv.Atoi(name)
	if !ok || err != nil || strconv.Itoa(n) != name {
		return export.Request{}, fmt.Errorf("export %q: ask for /export/{n}.csv or /export/{n}.ndjson, n a board size from 1 to %d, e.g. /export/8.csv", file, solver.MaxSearchN)
	}
	req := export.Request{N: n, Format: media.format}
	for key, values := range q {
		if len(values) != 1 {
			return req, fmt.Errorf("parameter %s is given %d times; give it once", key, len(values))
		}
		switch v := values[0]; key {
		case "unique":
			if req.Unique, err = strconv.ParseBool(v); err != nil || (v != "true" && v != "false") {
				return req, fmt.Errorf("unique=%q: write unique=true (canonical solutions, one per symmetry class) or unique=false", v)
			}
		case "where":
			if req.Filter, err = solver.ParseFilter(v); err != nil {
				return req, fmt.Errorf("where: %v", err)
			}
		default:
			return req, fmt.Errorf("unknown parameter %q; an export takes unique=true|false and where=q<row>.<col>,e<row>.<col>,… (e.g. where=q0.3,e1.1)", key)
		}
	}
	if err := req.Check(); err != nil {
		return req, errors.New(nqueens.ErrorMessage(err))
	}
	return req, nil
}

// exportFileName is the name a browser saves an export under, e.g.
// nqueens-8-unique-q0.3_e1.1.csv.
func exportFileName(req export.Request) string {
	name := "nqueens-" + strconv.Itoa(req.N)
	if req.Unique {
		name += "-unique"
	}
	if !req.Filter.IsZero() {
		name += "-" + strings.ReplaceAll(req.Filter.Key(), ",", "_")
	}
	for ext, m := range exportMedia {
		if m.format == req.Format {
			return name + "." + ext
		}
	}
	return name
}

// exportMediaType is the Content-Type of an export's format.
func exportMediaType(f export.Format) string {
	for _, m := range exportMedia {
		if m.format == f {
			return m.mediaType
		}
	}
	return "application/octet-stream"
}
