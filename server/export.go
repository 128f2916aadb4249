package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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
	"csv":     {export.CSV, "text/csv; charset=utf-8; header=present"},
	"ndjson":  {export.NDJSON, "application/x-ndjson"},
	"parquet": {export.Parquet, "application/vnd.apache.parquet"},
}

// serveExport answers GET /export/{n}.csv, .ndjson and .parquet
// (?unique=true, ?where=q0.3,e1.1): every solution of N, or those the
// filter keeps, streamed in lexicographic order (package export). The
// Parquet file of a board the store holds done, unfiltered, is made once
// and then served as a file (serveParquetFile), ranges and all.
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
	fileName := s.parquetFileName(req)
	if fileName != "" {
		// Made already: served without an export's slot, as the
		// many range requests of one reader come at once.
		if f := s.parquet.cached(fileName); f != nil {
			defer f.Close()
			s.serveParquetFile(w, r, req, f)
			return
		}
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
	if fileName != "" && e.Source == export.FromStore {
		// The build goes on when its client leaves: others may wait
		// for it, and it holds this request's slot until it ends.
		build, built := context.WithTimeout(context.WithoutCancel(r.Context()), s.cfg.ExportMaxDuration)
		defer built()
		stopBuild := context.AfterFunc(s.closing, built)
		defer stopBuild()
		f, err := s.parquet.open(ctx, fileName, func(w io.Writer) error {
			_, err := e.WriteTo(build, w)
			return err
		})
		running.Release()
		if err != nil {
			s.failWith(w, r, "export", err)
			return
		}
		defer f.Close()
		s.serveParquetFile(w, r, req, f)
		return
	}
	if req.Format == export.Parquet {
		// Compressed already, and a download of its own: no gzip.
		s.streamExport(ctx, w, r, e, req)
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

// parquetFileName is the name of the file of req's export in ParquetDir,
// "" when it is not kept in a file: no ParquetDir, not Parquet, or
// filtered (the filters are too many to keep a file each).
func (s *Server) parquetFileName(req export.Request) string {
	if s.parquet == nil || req.Format != export.Parquet || !req.Filter.IsZero() {
		return ""
	}
	name := "nqueens-" + parquetFileVersion + "-" + strconv.Itoa(req.N)
	if req.Unique {
		name += "-unique"
	}
	return name + ".parquet"
}

// serveParquetFile serves a made Parquet file with http.ServeContent:
// Range (206, 416), HEAD, and an ETag for If-None-Match and If-Range
// (304); Last-Modified is when it was made. Like a streamed export, each
// block written moves the write deadline ExportStallTimeout ahead, up to
// ExportMaxDuration from the start.
func (s *Server) serveParquetFile(w http.ResponseWriter, r *http.Request, req export.Request, f *os.File) {
	info, err := f.Stat()
	if err != nil {
		s.failWith(w, r, "export", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", exportMediaType(req.Format))
	h.Set("Content-Disposition", `attachment; filename="`+exportFileName(req)+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	// Revalidated each time (the ETag answers 304): a file removed from
	// the directory and made again gets another.
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", fmt.Sprintf(`"%s-%x-%x"`, strings.TrimSuffix(filepath.Base(f.Name()), ".parquet"), info.Size(), info.ModTime().UnixNano()))
	out := &deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), stall: s.cfg.ExportStallTimeout, end: time.Now().Add(s.cfg.ExportMaxDuration)}
	http.ServeContent(out, r, "", info.ModTime(), f)
}

// deadlineWriter moves the write deadline stall ahead of each write, but
// not past end.
type deadlineWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
	end   time.Time
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	deadline := time.Now().Add(d.stall)
	if deadline.After(d.end) {
		deadline = d.end
	}
	if err := d.rc.SetWriteDeadline(deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return d.ResponseWriter.Write(p)
}

// parseExport reads an export's file name ({n}.csv, .ndjson, .parquet) and its
// query parameters (unique, where), saying what is allowed when they are
// wrong. The board and the filter are checked by export.Plan.
func parseExport(file string, q url.Values) (export.Request, error) {
	name, ext, _ := strings.Cut(file, ".")
	media, ok := exportMedia[ext]
	n, err := strconv.Atoi(name)
	if !ok || err != nil || strconv.Itoa(n) != name {
		return export.Request{}, fmt.Errorf("export %q: ask for /export/{n}.csv, /export/{n}.ndjson or /export/{n}.parquet, n a board size from 1 to %d, e.g. /export/8.csv", file, solver.MaxSearchN)
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
