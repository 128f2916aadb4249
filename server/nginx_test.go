package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/testgate"
	"github.com/nqueens/nqueens/server"
)

// The server behind a real nginx configured by deploy/nginx's template,
// as docker-compose.yml's profile `cache` runs it. nginx connects to the
// server from 127.0.0.1, the trusted proxy; the test's clients connect to
// nginx from other loopback addresses, so that the server can tell them
// from the proxy.

var nginxTests = testgate.Suite{
	Name:    "the tests through nginx",
	Require: "NQUEENS_REQUIRE_NGINX",
	Enable:  "apt-get install -y nginx-light (or nginx)",
}

// nginxTemplate is the proxy's configuration, shared with the compose file.
var nginxTemplate = filepath.Join("..", "deploy", "nginx", "nqueens.conf.template")

// startNginx runs nginx in front of the server at upstream (host:port)
// until the test ends and returns its root URL. nginx runs in the
// foreground of a prefix of its own: nothing of the machine's nginx is
// used or touched.
func startNginx(t *testing.T, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/nginx"); statErr == nil {
			bin, err = "/usr/sbin/nginx", nil
		}
	}
	if err != nil {
		nginxTests.Missing(t, "nginx is not installed ("+err.Error()+")")
	}
	template, err := os.ReadFile(nginxTemplate)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, sub := range []string{"cache", "tmp", "logs"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	listen := freeLoopbackAddr(t)
	conf := string(template)
	for name, value := range map[string]string{
		"NQUEENS_UPSTREAM": upstream,
		"NGINX_PORT":       listen,
		"NGINX_CACHE_DIR":  filepath.Join(dir, "cache"),
	} {
		conf = strings.ReplaceAll(conf, "${"+name+"}", value)
	}
	if err := os.WriteFile(filepath.Join(dir, "nqueens.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// The main configuration: everything nginx writes goes under dir (the
	// package's paths are the machine's). Run as root, nginx would hand
	// its workers to nobody, who cannot write into dir.
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	main := fmt.Sprintf(`%[2]s
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/logs/error.log warn;
events { worker_connections 512; }
http {
    access_log %[1]s/logs/access.log;
    client_body_temp_path %[1]s/tmp/body;
    proxy_temp_path %[1]s/tmp/proxy;
    fastcgi_temp_path %[1]s/tmp/fastcgi;
    uwsgi_temp_path %[1]s/tmp/uwsgi;
    scgi_temp_path %[1]s/tmp/scgi;
    include %[1]s/nqueens.conf;
}
`, dir, user)
	mainPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(mainPath, []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", mainPath, "-g", "daemon off;")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			errLog, _ := os.ReadFile(filepath.Join(dir, "logs", "error.log"))
			t.Logf("nginx's output:\n%s\nits error log:\n%s", out.String(), errLog)
		}
	})
	eventually.True(t, 10*time.Second, func() string {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("nginx exited: %v\n%s", err, out.String())
		default:
		}
		c, err := net.DialTimeout("tcp", listen, time.Second)
		if err != nil {
			return "nginx does not listen yet: " + err.Error()
		}
		c.Close()
		return ""
	})
	return "http://" + listen
}

// freeLoopbackAddr is a loopback address with a port nobody listens on.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// clientFrom is b's client as seen from the loopback address ip, talking
// to base (nginx); it asks for no compression of its own accord.
func clientFrom(b *apitest.Bundle, base, ip string) *apitest.Bundle {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext, DisableCompression: true}
	return &apitest.Bundle{URL: base + "/graphql", Base: base, Server: b.Server, Logs: b.Logs, HTTP: &http.Client{Transport: tr}}
}

// rawGet sends GET url with Accept-Encoding encoding (none for "") and
// returns the answer as it came, compressed or not.
func rawGet(t *testing.T, b *apitest.Bundle, url, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", apitest.Accept)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	resp, err := b.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// nginxLoopback trusts nginx, which reaches the server from 127.0.0.1.
func nginxLoopback(c *server.Config) {
	c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
}

// TestNginxCachesFinishedPages: through nginx, a GET of a finished
// board's page is a MISS, then a HIT with the same body and ETag that the
// server does not see; If-None-Match gets 304 from the cache; each
// encoding is an entry of its own. Answers that may change, errors and
// POSTs are never cached: the server answers each.
func TestNginxCachesFinishedPages(t *testing.T) {
	t.Parallel()
	direct := setupAnswers(t, nginxLoopback)
	base := startNginx(t, strings.TrimPrefix(direct.Base, "http://"))
	b := clientFrom(direct, base, "127.0.0.3")
	// served is how many answers the server has built or taken from its
	// own answer cache: every request that reached it.
	served := func() int64 { h, m := direct.Server.AnswerCacheStats(); return h + m }

	first := b.Get(t, apitest.Request{Query: page8})
	etag := first.Header.Get("ETag")
	if first.Status != 200 || first.Code() != "" || etag == "" || first.Header.Get("X-Cache-Status") != "MISS" ||
		!strings.HasPrefix(first.Header.Get("Cache-Control"), "public, max-age=") {
		t.Fatalf("first GET through nginx: %d X-Cache-Status %q ETag %q Cache-Control %q: %s",
			first.Status, first.Header.Get("X-Cache-Status"), etag, first.Header.Get("Cache-Control"), first.Raw)
	}
	before := served()
	again := b.Get(t, apitest.Request{Query: page8})
	if again.Status != 200 || again.Header.Get("X-Cache-Status") != "HIT" || again.Header.Get("ETag") != etag || !bytes.Equal(again.Raw, first.Raw) {
		t.Errorf("second GET: %d X-Cache-Status %q ETag %q (want 200 HIT %q and the first's body)\n%s\n%s",
			again.Status, again.Header.Get("X-Cache-Status"), again.Header.Get("ETag"), etag, first.Raw, again.Raw)
	}
	if id := again.Header.Get("X-Request-Id"); id == "" || id == first.Header.Get("X-Request-Id") {
		t.Errorf("the HIT's X-Request-Id %q; want one of its own, not the MISS's %q", id, first.Header.Get("X-Request-Id"))
	}
	notModified := b.Get(t, apitest.Request{Query: page8}, "If-None-Match", etag)
	if notModified.Status != http.StatusNotModified || len(notModified.Raw) != 0 || notModified.Header.Get("X-Cache-Status") != "HIT" {
		t.Errorf("If-None-Match through nginx: %d X-Cache-Status %q %q; want 304 HIT, no body", notModified.Status, notModified.Header.Get("X-Cache-Status"), notModified.Raw)
	}
	if got := served(); got != before {
		t.Errorf("the server answered %d requests that nginx had cached", got-before)
	}

	// A page big enough to be compressed: the gzip answer is its own
	// entry, with its own ETag; the identity one is not served to it.
	const page8All = `{ solutions(n: 8, first: 92) { edges { node { placement } } } }`
	pageURL := b.URL + "?query=" + url.QueryEscape(page8All)
	var statuses []string
	for range 2 {
		resp, body := rawGet(t, b, pageURL, "gzip")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
			t.Fatalf("gzip GET: %d Content-Encoding %q, body %.20q", resp.StatusCode, resp.Header.Get("Content-Encoding"), body)
		}
		statuses = append(statuses, resp.Header.Get("X-Cache-Status"))
	}
	resp, body := rawGet(t, b, pageURL, "")
	statuses = append(statuses, resp.Header.Get("X-Cache-Status"))
	if resp.Header.Get("Content-Encoding") != "" || !strings.Contains(string(body), `"placement"`) {
		t.Errorf("identity GET after gzip ones: Content-Encoding %q, body %.80q", resp.Header.Get("Content-Encoding"), body)
	}
	if want := []string{"MISS", "HIT", "MISS"}; !slices.Equal(statuses, want) {
		t.Errorf("gzip, gzip, identity: X-Cache-Status %v, want %v", statuses, want)
	}

	// Never cached: the server answers every one of them.
	uncached := []struct {
		what string
		send func() *apitest.Response
	}{
		{"a board nobody computed (no-cache)", func() *apitest.Response {
			return b.Get(t, apitest.Request{Query: `{ count(n: 9) { total state source } }`})
		}},
		{"an error (no-store)", func() *apitest.Response {
			return b.Get(t, apitest.Request{Query: `{ solutions(n: 8, first: 100000) { totalCount } }`})
		}},
		{"a POST", func() *apitest.Response { return b.Post(t, apitest.Request{Query: page8}) }},
	}
	for _, u := range uncached {
		before := served()
		var got []string
		for range 2 {
			r := u.send()
			if r.Status == http.StatusBadGateway || r.Status == http.StatusGatewayTimeout {
				t.Fatalf("%s: nginx answered %d", u.what, r.Status)
			}
			got = append(got, r.Header.Get("X-Cache-Status"))
		}
		if slices.Contains(got, "HIT") || served()-before != 2 {
			t.Errorf("%s twice: X-Cache-Status %q, the server answered %d; want no HIT and 2", u.what, got, served()-before)
		}
	}
}

// TestNginxClientsKeepTheirShares: behind nginx each client keeps its own
// rate: one client past its burst is refused (and the refusal is not
// cached for the next), another client through the same nginx is served.
func TestNginxClientsKeepTheirShares(t *testing.T) {
	t.Parallel()
	direct := setupAnswers(t, nginxLoopback, func(c *server.Config) { c.RateLimit, c.RateBurst = 0.01, 3 })
	base := startNginx(t, strings.TrimPrefix(direct.Base, "http://"))
	greedy := clientFrom(direct, base, "127.0.0.3")
	other := clientFrom(direct, base, "127.0.0.4")

	// POSTs reach the server each time: the rate limit sees them all.
	var statuses []int
	for range 4 {
		statuses = append(statuses, greedy.Post(t, apitest.Request{Query: page8}).Status)
	}
	if want := []int{200, 200, 200, 429}; !slices.Equal(statuses, want) {
		t.Fatalf("one client through nginx: statuses %v, want %v", statuses, want)
	}
	// A refused GET is not cached for anybody.
	if r := greedy.Get(t, apitest.Request{Query: page8}); r.Status != http.StatusTooManyRequests {
		t.Fatalf("GET of the refused client: %d, want 429", r.Status)
	}
	if r := other.Get(t, apitest.Request{Query: page8}); r.Status != 200 || r.Header.Get("X-Cache-Status") != "MISS" {
		t.Errorf("another client through the same nginx: %d X-Cache-Status %q, want 200 MISS (its own rate; the 429 not cached)",
			r.Status, r.Header.Get("X-Cache-Status"))
	}
}

// TestNginxConnectionShare: behind nginx the share of connections per
// client is kept by nginx (serve sees only nginx's): one address holding
// 64 requests open (headers sent, the body never) has its next refused
// with 429 at once, while another address is served.
func TestNginxConnectionShare(t *testing.T) {
	t.Parallel()
	direct := setupAnswers(t, nginxLoopback)
	base := startNginx(t, strings.TrimPrefix(direct.Base, "http://"))
	addr := strings.TrimPrefix(base, "http://")
	hold := func(ip string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := fmt.Fprint(c, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for range 64 {
		hold("127.0.0.3")
	}
	// nginx reads the held requests' headers as they come; a newcomer's
	// that came before the last of them were read may still pass, so a
	// few are tried: the share must refuse one within them, at once.
	refused := false
	for try := 0; try < 4 && !refused; try++ {
		start := time.Now()
		resp, body, err := rawAnswer(hold("127.0.0.3"), 2*time.Second)
		if err != nil {
			continue // admitted: it waits for its body
		}
		if err := checkRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
			t.Fatalf("a connection of 127.0.0.3 past 64: %v", err)
		}
		t.Logf("a connection of 127.0.0.3 past 64 refused 429 after %s", time.Since(start).Round(time.Millisecond))
		refused = true
	}
	if !refused {
		t.Fatal("127.0.0.3 held 68 requests open through nginx, none refused; want 429 past 64")
	}
	other := clientFrom(direct, base, "127.0.0.4")
	if r := other.Get(t, apitest.Request{Query: page8}); r.Status != 200 {
		t.Errorf("another address while 127.0.0.3 holds its share: %d, want 200", r.Status)
	}
}

// TestNginxWebsocketAndExport: the template's other paths. A websocket
// upgrade goes through nginx as one (a subscription answers over it), and
// an export streams through /export/ whole, uncached: each download
// reaches the server.
func TestNginxWebsocketAndExport(t *testing.T) {
	t.Parallel()
	direct := setupAnswers(t, nginxLoopback)
	base := startNginx(t, strings.TrimPrefix(direct.Base, "http://"))
	b := clientFrom(direct, base, "127.0.0.3")

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sub := b.Subscribe(t, ctx, `subscription { boardProgress(n: 8) { n state } }`, nil)
	var progress struct {
		BoardProgress struct {
			N     int
			State string
		}
	}
	if !sub.Next(t, &progress) || progress.BoardProgress.N != 8 || progress.BoardProgress.State != "DONE" {
		t.Fatalf("a subscription through nginx: %+v", progress)
	}
	sub.Close()

	const exportURL = "/export/8.csv"
	want, _ := rawGet(t, direct, direct.Base+exportURL, "")
	if want.StatusCode != 200 {
		t.Fatalf("the export from the server: %d", want.StatusCode)
	}
	for range 2 {
		before := exportsServed(t, direct)
		resp, body := rawGet(t, b, base+exportURL, "")
		lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
		if resp.StatusCode != 200 || len(lines) != 1+92 {
			t.Fatalf("the export through nginx: %d, %d lines (want a header and 92 solutions)", resp.StatusCode, len(lines))
		}
		if s := resp.Header.Get("X-Cache-Status"); s != "" {
			t.Errorf("the export through nginx: X-Cache-Status %q, want none (not cached)", s)
		}
		// The server logs a request once its handler returns, which may be
		// just after the client has read the whole answer.
		eventually.True(t, 10*time.Second, func() string {
			if after := exportsServed(t, direct); after != before+1 {
				return fmt.Sprintf("the server logged %d exports for one download through nginx", after-before)
			}
			return ""
		})
	}
}

// exportsServed is how many exports the server has answered, from its
// request log.
func exportsServed(t *testing.T, b *apitest.Bundle) int {
	t.Helper()
	n := 0
	for line := range strings.Lines(b.Logs.String()) {
		if strings.Contains(line, " path=/export/8.csv ") && strings.Contains(line, " status=200 ") {
			n++
		}
	}
	return n
}
