package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// TestExportContent downloads boards the store holds (N=6, 8) and one it
// does not (N=9, from the solver) as CSV and NDJSON, all and unique, with
// and without a filter: each body is the enumeration kept by brute force,
// with the headers a notebook needs.
func TestExportContent(t *testing.T) {
	t.Parallel()
	st := sqlitetest.OpenTemp(t)
	storetest.LoadRange(t.Context(), t, st, 6, 8)
	b := apitest.Setup(t, func(c *server.Config) { c.ExportStore = st })
	for _, n := range []int{6, 8, 9} {
		for _, where := range []string{"", "q0.1", "q2.3,e1.1"} {
			f, err := solver.ParseFilter(where)
			if err != nil {
				t.Fatal(err)
			}
			for _, unique := range []bool{false, true} {
				want := expected(n, unique, f)
				for _, ext := range []string{"csv", "ndjson"} {
					url := fmt.Sprintf("%s/export/%d.%s?unique=%t&where=%s", b.Base, n, ext, unique, where)
					resp, body := get(t, b, url)
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
					}
					wantType := map[string]string{"csv": "text/csv; charset=utf-8; header=present", "ndjson": "application/x-ndjson"}[ext]
					if got := resp.Header.Get("Content-Type"); got != wantType {
						t.Errorf("GET %s: Content-Type %q, want %q", url, got, wantType)
					}
					if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="nqueens-`+strconv.Itoa(n)) || !strings.HasSuffix(cd, "."+ext+`"`) {
						t.Errorf("GET %s: Content-Disposition %q", url, cd)
					}
					if got := parseBody(t, n, ext, body); !slices.EqualFunc(got, want, func(p, q solver.Placement) bool { return p.Compare(q) == 0 }) {
						t.Errorf("GET %s: %d solutions %v, want %v", url, len(got), got, want)
					}
				}
			}
		}
	}
}

// TestExportBadParams: what is not an export is 400 BAD_USER_INPUT with a
// message that says what is allowed, and the server serves the next one.
func TestExportBadParams(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.ExportSolverMaxN = 10 })
	for path, says := range map[string]string{
		"/export/8.xml":            "ask for /export/{n}.csv, /export/{n}.ndjson or /export/{n}.parquet",
		"/export/eight.csv":        "ask for /export/{n}.csv, /export/{n}.ndjson or /export/{n}.parquet",
		"/export/08.csv":           "ask for /export/{n}.csv, /export/{n}.ndjson or /export/{n}.parquet",
		"/export/0.csv":            "N must be between 1 and 32",
		"/export/33.ndjson":        "N must be between 1 and 32",
		"/export/8.csv?unique=yes": "write unique=true",
		"/export/8.csv?where=z1":   "write q<row>.<col>",
		"/export/8.csv?where=q8.0": "rows and columns of N=8 go from 0 to 7",
		"/export/4.csv?where=e0.0,e0.1,e0.2,e0.3,e1.0,e1.1,e1.2,e1.3,e2.0": "a filter names at most 2N = 8 squares a list for N=4, and 64 in all",
		"/export/8.csv?page=2":            `unknown parameter "page"`,
		"/export/8.csv?where=&where=q1.1": "give it once",
		"/export/11.csv":                  "exported up to N=10",
	} {
		resp := b.Raw(t, http.MethodGet, b.Base+path, nil)
		if resp.Status != http.StatusBadRequest || resp.Code() != "BAD_USER_INPUT" || !strings.Contains(resp.Message(), says) {
			t.Errorf("GET %s: %d %s %q; want 400 BAD_USER_INPUT saying %q", path, resp.Status, resp.Code(), resp.Message(), says)
		}
	}
	if resp, _ := get(t, b, b.Base+"/export/4.csv"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /export/4.csv after the bad ones: %d", resp.StatusCode)
	}
	if head := b.Raw(t, http.MethodHead, b.Base+"/export/4.csv", nil); head.Status != http.StatusOK || len(head.Raw) != 0 || head.Header.Get("Content-Disposition") == "" {
		t.Errorf("HEAD /export/4.csv: %d, %d bytes, Content-Disposition %q; want 200, the headers and no body", head.Status, len(head.Raw), head.Header.Get("Content-Disposition"))
	}
	if post := b.Raw(t, http.MethodPost, b.Base+"/export/4.csv", nil); post.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST /export/4.csv: %d, want 405", post.Status)
	}
}

// TestExportFileNameIsCanonical: the file an export is saved under names
// its filter by the filter's canonical text (squares sorted by row, then
// column, each once), not as it was typed, so that the same export has
// the same name however it was asked for.
func TestExportFileNameIsCanonical(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	for path, want := range map[string]string{
		"/export/6.csv?where=e3.3,q1.2,e0.0,q1.2":           "nqueens-6-q1.2_e0.0_e3.3.csv",
		"/export/6.ndjson?unique=true&where=q1.2,e0.0,e3.3": "nqueens-6-unique-q1.2_e0.0_e3.3.ndjson",
		"/export/6.csv?where=":                              "nqueens-6.csv",
	} {
		head := b.Raw(t, http.MethodHead, b.Base+path, nil)
		if cd := head.Header.Get("Content-Disposition"); head.Status != http.StatusOK || cd != `attachment; filename="`+want+`"` {
			t.Errorf("HEAD %s: %d, Content-Disposition %q; want the file %s", path, head.Status, cd, want)
		}
	}
}

// TestExportCancelStopsWork: a client that goes away mid-download stops
// the store's query (here an endlessWalk one) at once.
func TestExportCancelStopsWork(t *testing.T) {
	t.Parallel()
	st := newEndlessWalk()
	b := apitest.Setup(t, func(c *server.Config) { c.ExportStore = st })
	ctx, cancel := context.WithCancel(t.Context())
	resp := startDownload(t, ctx, b, "/export/8.csv")
	readSome(t, resp.Body, 1<<20)
	cancel()
	resp.Body.Close()
	st.waitStopped(t)
}

// TestExportStalledClientDropped: a client that stops reading is dropped
// after ExportStallTimeout, which stops the query.
func TestExportStalledClientDropped(t *testing.T) {
	t.Parallel()
	st := newEndlessWalk()
	b := apitest.Setup(t, func(c *server.Config) {
		c.ExportStore = st
		c.ExportStallTimeout = 200 * time.Millisecond
	})
	resp := startDownload(t, t.Context(), b, "/export/8.csv")
	defer resp.Body.Close()
	readSome(t, resp.Body, 1<<10)
	st.waitStopped(t) // the client holds the connection and reads no more
}

// TestExportOutlivesWriteTimeout: a download that goes on for longer than
// the server's WriteTimeout, and than ExportStallTimeout, is not cut,
// since each block moves the write deadline.
func TestExportOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	st := newEndlessWalk()
	b := apitest.Setup(t, func(c *server.Config) {
		c.ExportStore = st
		c.RequestTimeout = 100 * time.Millisecond
		c.WriteTimeout = 200 * time.Millisecond
		c.ExportStallTimeout = 300 * time.Millisecond
	})
	ctx, cancel := context.WithCancel(t.Context())
	resp := startDownload(t, ctx, b, "/export/8.csv")
	end := time.Now().Add(4 * 300 * time.Millisecond)
	for time.Now().Before(end) {
		readSome(t, resp.Body, 64<<10)
	}
	cancel()
	resp.Body.Close()
	st.waitStopped(t)
}

// TestExportConcurrencyCap: past ExportMaxPerClient running exports of a
// client, its next is 429 RATE_LIMITED, and past ExportMaxConcurrent of
// all clients another client's is 503 UNAVAILABLE, both with
// Retry-After; once one ends, the next runs.
func TestExportConcurrencyCap(t *testing.T) {
	t.Parallel()
	st := newEndlessWalk()
	b := apitest.Setup(t, func(c *server.Config) {
		c.ExportStore = st
		c.ExportMaxConcurrent, c.ExportMaxPerClient = 1, 1
	})
	ctx, cancel := context.WithCancel(t.Context())
	resp := startDownload(t, ctx, b, "/export/8.csv")
	readSome(t, resp.Body, 1<<10)
	for _, tt := range []struct {
		client       *apitest.Bundle
		status       int
		code, reason string
	}{
		{b, http.StatusTooManyRequests, "RATE_LIMITED", "EXPORTS_PER_CLIENT"},
		{from(t, b, "127.0.0.2"), http.StatusServiceUnavailable, "UNAVAILABLE", "EXPORTS_TOTAL"},
	} {
		refused := tt.client.Raw(t, http.MethodGet, b.Base+"/export/4.csv", nil)
		if refused.Status != tt.status || refused.Code() != tt.code || refused.Reason() != tt.reason || refused.Header.Get("Retry-After") == "" {
			t.Errorf("a second export: %d %s %s, Retry-After %q; want %d %s %s with Retry-After",
				refused.Status, refused.Code(), refused.Reason(), refused.Header.Get("Retry-After"), tt.status, tt.code, tt.reason)
		}
	}
	cancel()
	resp.Body.Close()
	st.waitStopped(t)
	// The slot is given back when the handler returns, just after the
	// walk: the next export runs once it is.
	eventually.True(t, 10*time.Second, func() string {
		if r := b.Raw(t, http.MethodGet, b.Base+"/export/4.csv", nil); r.Status != http.StatusOK {
			return fmt.Sprintf("after the first export ended, a second: %d %s", r.Status, r.Raw)
		}
		return ""
	})
}

// endlessWalk is a store whose N=8 (and no other board) is done and
// whose walk yields the first solution for ever, until its context ends or visit fails; stopped
// receives why it stopped.
type endlessWalk struct{ stopped chan error }

func newEndlessWalk() *endlessWalk { return &endlessWalk{stopped: make(chan error, 1)} }

func (e *endlessWalk) Board(_ context.Context, n int) (store.Board, error) {
	if n != 8 {
		return store.Board{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d is not stored", n)
	}
	return store.Board{N: n, State: store.Done, StoresSolutions: true}, nil
}

func (e *endlessWalk) Walk(ctx context.Context, req store.WalkRequest, visit func([]byte) error) error {
	var key []byte
	for p := range solver.All(req.N) {
		key = p.Bytes()
		break
	}
	for {
		err := ctx.Err()
		if err == nil {
			err = visit(key)
		}
		if err != nil {
			e.stopped <- err
			return err
		}
	}
}

func (e *endlessWalk) waitStopped(t *testing.T) {
	t.Helper()
	select {
	case <-e.stopped:
	case <-t.Context().Done():
		t.Fatal("the export's walk did not stop")
	}
}

func startDownload(t *testing.T, ctx context.Context, b *apitest.Bundle, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.Base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := b.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return resp
}

func readSome(t *testing.T, r io.Reader, k int64) {
	t.Helper()
	if n, err := io.CopyN(io.Discard, r, k); err != nil {
		t.Fatalf("read %d bytes of the download, then %v", n, err)
	}
}

func get(t *testing.T, b *apitest.Bundle, url string) (*http.Response, string) {
	t.Helper()
	resp, err := b.HTTP.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// parseBody reads a CSV or NDJSON export back.
func parseBody(t *testing.T, n int, ext, body string) []solver.Placement {
	t.Helper()
	var out []solver.Placement
	sc := bufio.NewScanner(strings.NewReader(body))
	for i := 0; sc.Scan(); i++ {
		line := sc.Text()
		if ext == "ndjson" {
			var obj struct {
				N         int   `json:"n"`
				Placement []int `json:"placement"`
			}
			if err := json.Unmarshal([]byte(line), &obj); err != nil || obj.N != n {
				t.Fatalf("NDJSON line %q: %v", line, err)
			}
			out = append(out, obj.Placement)
			continue
		}
		fields := strings.Split(line, ",")
		if i == 0 {
			if fields[0] != "row0" || len(fields) != n {
				t.Fatalf("CSV header %q", line)
			}
			continue
		}
		p := make(solver.Placement, len(fields))
		for j, f := range fields {
			c, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("CSV line %q: %v", line, err)
			}
			p[j] = c
		}
		out = append(out, p)
	}
	return out
}

// expected is the enumeration of N kept by f, by brute force: for unique,
// the canonical solutions with an image that meets f.
func expected(n int, unique bool, f solver.Filter) []solver.Placement {
	seq := solver.All(n)
	if unique {
		seq = solver.AllUnique(n)
	}
	var out []solver.Placement
	for p := range seq {
		if slices.ContainsFunc(solver.Images(p), func(im solver.Image) bool {
			return f.Matches(im.Placement) && (unique || im.Symmetry == solver.Identity)
		}) {
			out = append(out, p.Clone())
		}
	}
	return out
}
