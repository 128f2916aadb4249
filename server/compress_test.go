package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/server"
)

// rawClient does not ask for compression on its own, nor undo it: the
// tests see the bytes as they came.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// fetch sends method url (body for POST) with Accept-Encoding enc ("" for
// none) and returns the answer with its body decoded as its
// Content-Encoding says.
func fetch(t *testing.T, method, url, body, enc string, header ...string) (resp *http.Response, raw, decoded []byte) {
	t.Helper()
	return fetchWith(t, rawClient, method, url, body, enc, header...)
}

// fetchWith is fetch through client (which must not undo the encoding
// either: it does not when the request names one).
func fetchWith(t *testing.T, client *http.Client, method, url, body, enc string, header ...string) (resp *http.Response, raw, decoded []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw, undoEncoding(t, resp.Header.Get("Content-Encoding"), raw)
}

// undoEncoding undoes a Content-Encoding.
func undoEncoding(t *testing.T, enc string, raw []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "":
		return raw
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("zstd: %v", err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("Content-Encoding %q", enc)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", enc, err)
	}
	return out
}

// bigPage is a page of N=8 of about 4 KB, above CompressMinBytes.
const bigPage = `{"query":"{ solutions(n: 8, first: 50) { edges { cursor node { placement } } } }"}`

// TestCompressionNegotiated: the client's Accept-Encoding chooses gzip or
// zstd (q-values weighed), the answer decodes to the plain one, small
// answers and clients that ask for nothing get them plain.
func TestCompressionNegotiated(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t, func(c *server.Config) { c.AnswerCacheBytes = 0 })
	_, plain, _ := fetch(t, http.MethodPost, b.URL, bigPage, "")
	if len(plain) < 2048 || !bytes.Contains(plain, []byte(`"edges":[{`)) {
		t.Fatalf("plain page: %d bytes %.200s", len(plain), plain)
	}
	for _, c := range []struct{ accept, want string }{
		{"gzip", "gzip"},
		{"zstd", "zstd"},
		{"gzip, zstd", "zstd"},
		{"zstd;q=0.5, gzip", "gzip"},
		{"gzip;q=0, zstd;q=0", ""},
		{"br", ""},
		{"identity", ""},
	} {
		resp, raw, decoded := fetch(t, http.MethodPost, b.URL, bigPage, c.accept)
		if got := resp.Header.Get("Content-Encoding"); got != c.want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q; want %q", c.accept, got, c.want)
		}
		if !bytes.Equal(decoded, plain) {
			t.Errorf("Accept-Encoding %q: decoded answer differs from the plain one", c.accept)
		}
		if c.want != "" && len(raw) >= len(plain)/2 {
			t.Errorf("Accept-Encoding %q: %d bytes for a %d-byte answer", c.accept, len(raw), len(plain))
		}
		if !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %q: Vary %q lacks Accept-Encoding", c.accept, resp.Header.Values("Vary"))
		}
	}
	small := `{"query":"{ count(n: 8) { total } }"}`
	if resp, _, _ := fetch(t, http.MethodPost, b.URL, small, "gzip"); resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("a small answer compressed: %q", resp.Header.Get("Content-Encoding"))
	}
}

// TestCompressionETags: each encoding has its own ETag, and each is
// revalidated (304), from the answer cache or not.
func TestCompressionETags(t *testing.T) {
	t.Parallel()
	for _, cacheBytes := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprintf("answer cache %d", cacheBytes), func(t *testing.T) {
			t.Parallel()
			b := setupAnswers(t, func(c *server.Config) { c.AnswerCacheBytes = cacheBytes })
			url := b.URL + "?query=" + strings.ReplaceAll("{ solutions(n: 8, first: 50) { edges { cursor node { placement } } } }", " ", "+")
			tags := map[string]string{}
			for _, enc := range []string{"", "gzip", "zstd"} {
				resp, _, decoded := fetch(t, http.MethodGet, url, "", enc, "Accept", apitest.Accept)
				tag := resp.Header.Get("ETag")
				if resp.StatusCode != 200 || tag == "" || !bytes.Contains(decoded, []byte(`"edges":[{`)) {
					t.Fatalf("GET %q: %d ETag %q", enc, resp.StatusCode, tag)
				}
				tags[enc] = tag
				for range 2 { // the second time from the answer cache, when on
					resp, raw, _ := fetch(t, http.MethodGet, url, "", enc, "Accept", apitest.Accept, "If-None-Match", tag)
					if resp.StatusCode != http.StatusNotModified || len(raw) != 0 {
						t.Errorf("GET %q If-None-Match %s: %d, %d bytes; want 304", enc, tag, resp.StatusCode, len(raw))
					}
				}
			}
			if tags[""] == tags["gzip"] || tags["gzip"] == tags["zstd"] || tags[""] == tags["zstd"] {
				t.Errorf("ETags %v: want one per encoding", tags)
			}
		})
	}
}

// TestCompressionExport: an export streams compressed and decodes to the
// plain export.
func TestCompressionExport(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t)
	for _, format := range []string{"csv", "ndjson"} {
		url := b.Base + "/export/8." + format
		_, plain, _ := fetch(t, http.MethodGet, url, "", "")
		for _, enc := range []string{"gzip", "zstd"} {
			resp, raw, decoded := fetch(t, http.MethodGet, url, "", enc)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != enc || !bytes.Equal(decoded, plain) || len(raw) >= len(plain)/2 {
				t.Errorf("%s export, %s: %d %q, %d bytes for %d, equal %t", format, enc, resp.StatusCode,
					resp.Header.Get("Content-Encoding"), len(raw), len(plain), bytes.Equal(decoded, plain))
			}
		}
	}
}

// TestCompressorsShared: a client holding its compressors gets its other
// answers uncompressed, not refused, while another client is compressed.
func TestCompressorsShared(t *testing.T) {
	t.Parallel()
	// The answer cache is on: an answer left uncompressed for want of a
	// compressor must not be kept for those who ask for it compressed.
	b := setupAnswers(t, func(c *server.Config) { c.Compressors, c.CompressorsPerClient = 2, 1 })
	// An export of N=14 from the solver that the client does not read:
	// it holds its compressor while the server waits for it.
	req, _ := http.NewRequest(http.MethodGet, b.Base+"/export/14.csv", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the export: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	eventually.True(t, 10*time.Second, func() string {
		if held := b.Server.Pools(); heldOf(held, "compressors") != 1 {
			return "the export holds no compressor"
		}
		return ""
	})
	r, _, decoded := fetch(t, http.MethodPost, b.URL, bigPage, "gzip")
	if r.StatusCode != 200 || r.Header.Get("Content-Encoding") != "" || !bytes.Contains(decoded, []byte(`"edges":[{`)) {
		t.Errorf("same client, its compressor held: %d %q; want 200, uncompressed", r.StatusCode, r.Header.Get("Content-Encoding"))
	}
	other := from(t, b, "127.0.0.31")
	if r, _, _ := fetchWith(t, other.HTTP, http.MethodPost, b.URL, bigPage, "gzip"); r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("another client: Content-Encoding %q; want gzip (the total has room)", r.Header.Get("Content-Encoding"))
	}
	resp.Body.Close()
	eventually.True(t, 10*time.Second, func() string {
		if heldOf(b.Server.Pools(), "compressors") != 0 {
			return "the compressor is still held after the export ended"
		}
		return ""
	})
	if r, _, _ := fetch(t, http.MethodPost, b.URL, bigPage, "gzip"); r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("after the export: Content-Encoding %q; want gzip", r.Header.Get("Content-Encoding"))
	}
}

// TestCompressorsTakenByMany: clients that hold every compressor between
// them (each within its share) leave another client's answers
// uncompressed but answered, never refused; once they let go, its answers
// are compressed again.
func TestCompressorsTakenByMany(t *testing.T) {
	t.Parallel()
	b := setupAnswers(t, func(c *server.Config) { c.Compressors, c.CompressorsPerClient = 2, 1 })
	var held []*http.Response
	for _, ip := range []string{"127.0.0.41", "127.0.0.42"} {
		req, _ := http.NewRequest(http.MethodGet, b.Base+"/export/14.csv", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := from(t, b, ip).HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s's export: Content-Encoding %q", ip, resp.Header.Get("Content-Encoding"))
		}
		held = append(held, resp)
	}
	eventually.True(t, 10*time.Second, func() string {
		if got := heldOf(b.Server.Pools(), "compressors"); got != 2 {
			return fmt.Sprintf("%d compressors held; want both", got)
		}
		return ""
	})
	honest := from(t, b, "127.0.0.43").HTTP
	r, _, decoded := fetchWith(t, honest, http.MethodPost, b.URL, bigPage, "gzip, zstd")
	if r.StatusCode != 200 || r.Header.Get("Content-Encoding") != "" || !bytes.Contains(decoded, []byte(`"edges":[{`)) {
		t.Errorf("every compressor held by others: %d %q; want 200, uncompressed", r.StatusCode, r.Header.Get("Content-Encoding"))
	}
	for _, resp := range held {
		resp.Body.Close()
	}
	eventually.True(t, 10*time.Second, func() string {
		if got := heldOf(b.Server.Pools(), "compressors"); got != 0 {
			return fmt.Sprintf("%d compressors still held after the exports ended", got)
		}
		return ""
	})
	if r, _, _ := fetchWith(t, honest, http.MethodPost, b.URL, bigPage, "gzip, zstd"); r.Header.Get("Content-Encoding") != "zstd" {
		t.Errorf("the compressors free again: Content-Encoding %q; want zstd", r.Header.Get("Content-Encoding"))
	}
}

// TestCompressionWithCurl: curl, the client users try compression with,
// asks for each encoding and gets the plain export back.
func TestCompressionWithCurl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	b := setupAnswers(t)
	_, plain, _ := fetch(t, http.MethodGet, b.Base+"/export/8.csv", "", "")
	for _, enc := range []string{"gzip", "zstd"} {
		out, err := exec.Command("curl", "-sS", "--compressed", "-H", "Accept-Encoding: "+enc, "-D", "-", "-o", "/dev/stdout", b.Base+"/export/8.csv").Output()
		if err != nil {
			t.Fatalf("curl %s: %v", enc, err)
		}
		head, body, _ := bytes.Cut(out, []byte("\r\n\r\n"))
		if !bytes.Contains(bytes.ToLower(head), []byte("content-encoding: "+enc)) || !bytes.Equal(body, plain) {
			t.Errorf("curl %s: headers %s; body equal %t", enc, head, bytes.Equal(body, plain))
		}
	}
}

// heldOf is what the pool named name holds.
func heldOf(pools []*quota.Pool, name string) int64 {
	for _, p := range pools {
		if p.Name() == name {
			return p.Held()
		}
	}
	return -1
}
