package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// setupParquet serves N=6..8 from a SQLite store, its Parquet files
// kept in a directory of the test's; N=7's walks wait for release.
func setupParquet(t *testing.T, opts ...func(*server.Config)) (*apitest.Bundle, string, chan struct{}) {
	t.Helper()
	st := sqlitetest.OpenTemp(t)
	storetest.LoadRange(t.Context(), t, st, 6, 8)
	dir := t.TempDir()
	release := make(chan struct{})
	b := apitest.Setup(t, append([]func(*server.Config){func(c *server.Config) {
		c.ExportStore = blockedWalk{Store: st, n: 7, release: release}
		c.ParquetDir = dir
	}}, opts...)...)
	return b, dir, release
}

// blockedWalk is a store whose walks of N=n wait until release is closed.
type blockedWalk struct {
	export.Store
	n       int
	release chan struct{}
}

func (h blockedWalk) Walk(ctx context.Context, req store.WalkRequest, visit func([]byte) error) error {
	if req.N == h.n {
		select {
		case <-h.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.Store.Walk(ctx, req, visit)
}

// parquetRows is what a Parquet export of N must hold: the solutions the
// filter keeps (unique: the classes with a member it keeps), each with
// its rank in the unfiltered listing.
func parquetRows(n int, unique bool, f solver.Filter) []export.ParquetRow {
	var rows []export.ParquetRow
	kept := expected(n, unique, f)
	for i, p := range expected(n, unique, solver.Filter{}) {
		if len(kept) > 0 && p.Compare(kept[0]) == 0 {
			rows = append(rows, export.ParquetRow{Rank: int64(i + 1), Placement: p})
			kept = kept[1:]
		}
	}
	return rows
}

func checkParquetBody(t *testing.T, what string, body []byte, want []export.ParquetRow) {
	t.Helper()
	_, got, err := export.ReadParquet(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("%s: parquet-go cannot read the body (%d bytes): %v", what, len(body), err)
	}
	if !slices.EqualFunc(got, want, func(a, b export.ParquetRow) bool { return a.Rank == b.Rank && slices.Equal(a.Placement, b.Placement) }) {
		t.Errorf("%s: %d rows %v, want %d: %v", what, len(got), got, len(want), want)
	}
}

// TestParquetExportFile: the Parquet export of a stored board is made
// once into ParquetDir, then served as a file: the enumeration with its
// ranks, HEAD, ranges (206, 416), If-None-Match (304) and If-Range.
func TestParquetExportFile(t *testing.T) {
	t.Parallel()
	b, dir, _ := setupParquet(t)
	for _, unique := range []bool{false, true} {
		url := fmt.Sprintf("%s/export/8.parquet?unique=%t", b.Base, unique)
		full := b.Raw(t, http.MethodGet, url, nil)
		if full.Status != http.StatusOK || full.Header.Get("Content-Type") != "application/vnd.apache.parquet" || full.Header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("GET %s: %d, Content-Type %q, Accept-Ranges %q", url, full.Status, full.Header.Get("Content-Type"), full.Header.Get("Accept-Ranges"))
		}
		checkParquetBody(t, "GET "+url, full.Raw, parquetRows(8, unique, solver.Filter{}))
		size := len(full.Raw)
		etag := full.Header.Get("ETag")
		if etag == "" || full.Header.Get("Last-Modified") == "" {
			t.Errorf("GET %s: ETag %q, Last-Modified %q; want both", url, etag, full.Header.Get("Last-Modified"))
		}

		head := b.Raw(t, http.MethodHead, url, nil)
		if head.Status != http.StatusOK || head.Header.Get("Content-Length") != strconv.Itoa(size) || head.Header.Get("ETag") != etag {
			t.Errorf("HEAD %s: %d, Content-Length %q, ETag %q; want 200, %d, %s", url, head.Status, head.Header.Get("Content-Length"), head.Header.Get("ETag"), size, etag)
		}
		for _, c := range []struct {
			header       []string
			status       int
			body         []byte
			contentRange string
		}{
			{[]string{"Range", "bytes=0-3"}, http.StatusPartialContent, []byte("PAR1"), fmt.Sprintf("bytes 0-3/%d", size)},
			{[]string{"Range", "bytes=-4"}, http.StatusPartialContent, []byte("PAR1"), fmt.Sprintf("bytes %d-%d/%d", size-4, size-1, size)},
			{[]string{"Range", "bytes=100-199"}, http.StatusPartialContent, full.Raw[100:200], fmt.Sprintf("bytes 100-199/%d", size)},
			{[]string{"Range", fmt.Sprintf("bytes=%d-", size)}, http.StatusRequestedRangeNotSatisfiable, nil, fmt.Sprintf("bytes */%d", size)},
			{[]string{"If-None-Match", etag}, http.StatusNotModified, []byte{}, ""},
			{[]string{"If-None-Match", `"another"`}, http.StatusOK, full.Raw, ""},
			{[]string{"Range", "bytes=0-3", "If-Range", etag}, http.StatusPartialContent, []byte("PAR1"), fmt.Sprintf("bytes 0-3/%d", size)},
			{[]string{"Range", "bytes=0-3", "If-Range", `"another"`}, http.StatusOK, full.Raw, ""},
		} {
			r := b.Raw(t, http.MethodGet, url, nil, c.header...)
			if r.Status != c.status || r.Header.Get("Content-Range") != c.contentRange || c.body != nil && !bytes.Equal(r.Raw, c.body) {
				t.Errorf("GET %s with %q: %d, Content-Range %q, %d bytes; want %d, %q, %d bytes", url, c.header, r.Status, r.Header.Get("Content-Range"), len(r.Raw), c.status, c.contentRange, len(c.body))
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"nqueens-v1-8-unique.parquet", "nqueens-v1-8.parquet"}; !slices.Equal(names, want) {
		t.Errorf("ParquetDir holds %v, want %v", names, want)
	}
}

// TestParquetExportStreamed: a filtered export, a board the store does
// not hold (from the solver) and any Parquet export without ParquetDir
// (or with one that cannot be made) stream: the rows with their ranks, no ranges (a Range header is
// ignored), no ETag, nothing left in ParquetDir.
func TestParquetExportStreamed(t *testing.T) {
	t.Parallel()
	b, dir, _ := setupParquet(t)
	noDir := apitest.Setup(t, func(c *server.Config) { c.ExportStore = sqlitetest.OpenTemp(t) })
	// A directory that cannot be made: the server starts, says why, and
	// streams.
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	badDir := apitest.Setup(t, func(c *server.Config) {
		c.ExportStore = sqlitetest.OpenTemp(t)
		c.ParquetDir = filepath.Join(notADir, "parquet")
	})
	for _, c := range []struct {
		b      *apitest.Bundle
		path   string
		n      int
		unique bool
		where  string
	}{
		{b, "/export/8.parquet?where=q0.3,e1.1", 8, false, "q0.3,e1.1"},
		{b, "/export/8.parquet?unique=true&where=q0.3", 8, true, "q0.3"},
		{b, "/export/9.parquet", 9, false, ""},
		{noDir, "/export/8.parquet", 8, false, ""},
		{badDir, "/export/8.parquet", 8, false, ""},
	} {
		f, err := solver.ParseFilter(c.where)
		if err != nil {
			t.Fatal(err)
		}
		r := c.b.Raw(t, http.MethodGet, c.b.Base+c.path, nil, "Range", "bytes=0-3")
		if r.Status != http.StatusOK || r.Header.Get("Accept-Ranges") == "bytes" || r.Header.Get("ETag") != "" || r.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s: %d, Accept-Ranges %q, ETag %q, Content-Encoding %q; want 200, the whole file streamed as it is", c.path, r.Status, r.Header.Get("Accept-Ranges"), r.Header.Get("ETag"), r.Header.Get("Content-Encoding"))
		}
		checkParquetBody(t, "GET "+c.path, r.Raw, parquetRows(c.n, c.unique, f))
	}
	if !strings.Contains(badDir.Logs.String(), "Parquet files are not kept") {
		t.Errorf("a ParquetDir that cannot be made: the log says %q; want why the files are not kept", badDir.Logs.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("ParquetDir holds %v after streamed exports; want nothing", entries)
	}
}

// TestParquetFileBounds: making a file takes an export's slot (429 past
// the client's share, as any export), and serving one made already does
// not, so that a reader's many range requests go on while the same
// client downloads something else.
func TestParquetFileBounds(t *testing.T) {
	t.Parallel()
	b, _, release := setupParquet(t, func(c *server.Config) { c.ExportMaxConcurrent, c.ExportMaxPerClient = 2, 1 })
	url8 := b.Base + "/export/8.parquet"
	if r := b.Raw(t, http.MethodHead, url8, nil); r.Status != http.StatusOK {
		t.Fatalf("HEAD %s: %d %s", url8, r.Status, r.Raw)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.Base+"/export/7.csv", nil)
		resp, err := b.HTTP.Do(req)
		if err != nil {
			done <- nil
			return
		}
		done <- resp
	}()
	// The CSV export of N=7 holds the client's slot while its walk waits.
	eventually.True(t, time.Minute, func() string {
		if held := heldOf(b.Server.Pools(), "exports"); held != 1 {
			return fmt.Sprintf("%d exports running, want N=7's", held)
		}
		return ""
	})
	if r := b.Raw(t, http.MethodGet, url8, nil, "Range", "bytes=0-3"); r.Status != http.StatusPartialContent || string(r.Raw) != "PAR1" {
		t.Errorf("a range of a made file while the client's slot is taken: %d %q; want 206 PAR1", r.Status, r.Raw)
	}
	if r := b.Raw(t, http.MethodGet, b.Base+"/export/6.parquet", nil); r.Status != http.StatusTooManyRequests || r.Reason() != "EXPORTS_PER_CLIENT" || r.Header.Get("Retry-After") == "" {
		t.Errorf("making a file while the client's slot is taken: %d %s, Retry-After %q; want 429 EXPORTS_PER_CLIENT with Retry-After", r.Status, r.Reason(), r.Header.Get("Retry-After"))
	}
	close(release)
	if resp := <-done; resp == nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the held CSV export did not finish: %v", resp)
	} else {
		resp.Body.Close()
	}
}

// TestParquetWithCurl: curl, the client users check ranges with, gets a
// range, a 304 for the ETag it was given, and the whole file.
func TestParquetWithCurl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	b, _, _ := setupParquet(t)
	url := b.Base + "/export/8.parquet"
	path := filepath.Join(t.TempDir(), "8.parquet")
	out, err := exec.Command("curl", "-sS", "-D", "-", "-o", path, url).Output()
	if err != nil {
		t.Fatalf("curl %s: %v", url, err)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkParquetBody(t, "curl "+url, body, parquetRows(8, false, solver.Filter{}))
	var etag string
	for line := range strings.SplitSeq(string(out), "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "etag") {
			etag = strings.TrimSpace(v)
		}
	}
	if etag == "" {
		t.Fatalf("curl %s: no ETag in %s", url, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-r", "0-3"}, "206 PAR1"},
		{[]string{"-r", "-4"}, "206 PAR1"},
		{[]string{"-H", "If-None-Match: " + etag}, "304 "},
		{[]string{"-r", strconv.Itoa(len(body)) + "-"}, "416 "},
	} {
		args := append([]string{"-sS", "-o", "-", "-w", " %{http_code}"}, c.args...)
		got, err := exec.Command("curl", append(args, url)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", c.args, err)
		}
		// The body, then its status: reordered to read "206 PAR1".
		s := string(got)
		status := s[len(s)-3:]
		content := s[:len(s)-4]
		if c.want == "416 " {
			content = "" // the error's text is ServeContent's own
		}
		if status+" "+content != c.want {
			t.Errorf("curl %v %s: %q; want %q", c.args, url, status+" "+content, c.want)
		}
	}
}

// bigParquetFile puts a file of k bytes where ParquetDir keeps N=8's (the
// server serves what it finds there, as it would after a restart), too
// big for the sockets' buffers to hold.
func bigParquetFile(t *testing.T, k int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nqueens-v1-8.parquet"), bytes.Repeat([]byte("PAR1"), k/4), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestParquetFileStalledClientDropped: a client that stops reading a
// served file is dropped after ExportStallTimeout: what it reads after
// that ends short, with an error.
func TestParquetFileStalledClientDropped(t *testing.T) {
	t.Parallel()
	const size = 64 << 20
	dir := bigParquetFile(t, size)
	b := apitest.Setup(t, func(c *server.Config) {
		c.ParquetDir, c.ParquetDirMaxBytes = dir, 2*size
		c.ExportStallTimeout = 200 * time.Millisecond
	})
	resp := startDownload(t, t.Context(), b, "/export/8.parquet")
	defer resp.Body.Close()
	readSome(t, resp.Body, 1<<10)
	time.Sleep(3 * time.Second) // 15 stall timeouts: the server has given up
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || n+1<<10 >= size {
		t.Errorf("after a stall, the client read %d more bytes of %d, then %v; want the download cut", n, size, err)
	}
}

// TestParquetFileOutlivesWriteTimeout: a download of a served file that
// goes on for six times the server's WriteTimeout is not cut, since each
// block moves the write deadline ExportStallTimeout ahead (2 s: the
// reader, paused 20 ms between blocks, may be late on a loaded machine).
func TestParquetFileOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	const size = 64 << 20
	dir := bigParquetFile(t, size)
	b := apitest.Setup(t, func(c *server.Config) {
		c.ParquetDir, c.ParquetDirMaxBytes = dir, 2*size
		c.RequestTimeout = 100 * time.Millisecond
		c.WriteTimeout = 200 * time.Millisecond
		c.ExportStallTimeout = 2 * time.Second
	})
	resp := startDownload(t, t.Context(), b, "/export/8.parquet")
	defer resp.Body.Close()
	read := int64(0)
	end := time.Now().Add(6 * 200 * time.Millisecond)
	for time.Now().Before(end) {
		readSome(t, resp.Body, 64<<10)
		read += 64 << 10
		time.Sleep(20 * time.Millisecond)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || read+n != size {
		t.Errorf("a slow download read %d bytes of %d, then %v; want all of it", read+n, size, err)
	}
}

// TestParquetRangesCrossOrigin: a page of an allowed origin may read a
// Parquet file by ranges (hyparquet, DuckDB-Wasm): the preflight allows
// Range and If-Range, and the answer exposes the headers a reader needs.
func TestParquetRangesCrossOrigin(t *testing.T) {
	t.Parallel()
	b, _, _ := setupParquet(t, func(c *server.Config) { c.CORSOrigins = []string{"https://notebook.example"} })
	url := b.Base + "/export/8.parquet"
	r := b.Raw(t, http.MethodOptions, url, nil,
		"Origin", "https://notebook.example",
		"Access-Control-Request-Method", "GET",
		"Access-Control-Request-Headers", "if-range,range")
	if r.Status/100 != 2 || r.Header.Get("Access-Control-Allow-Origin") != "https://notebook.example" || !strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "range") {
		t.Errorf("preflight of a range request: %d %v", r.Status, r.Header)
	}
	r = b.Raw(t, http.MethodGet, url, nil, "Origin", "https://notebook.example", "Range", "bytes=0-3")
	exposed := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers"))
	for _, h := range []string{"content-range", "content-length", "etag", "accept-ranges"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("a range from an allowed origin: %d, Access-Control-Expose-Headers %q lacks %s", r.Status, exposed, h)
		}
	}
	if r.Status != http.StatusPartialContent || string(r.Raw) != "PAR1" {
		t.Errorf("a range from an allowed origin: %d %q; want 206 PAR1", r.Status, r.Raw)
	}
}
