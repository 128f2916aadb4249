package main

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeDebugListener: --debug-addr serves Go's profiles on its own
// address, and the public address does not.
func TestServeDebugListener(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	s := startServe(t, []string{"NQUEENS_SQLITE_PATH=" + path}, "--debug-addr", "127.0.0.1:0")
	s.waitFor(t, time.Minute, "debug listener (pprof)")
	m := regexp.MustCompile(`debug listener \(pprof\)"? .*?addr=(127\.0\.0\.1:\d+)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no debug address logged:\n%s", s.stderr.String())
	}
	get := func(url string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	if code, body := get("http://" + m[1] + "/debug/pprof/profile?seconds=1"); code != 200 || !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		t.Errorf("CPU profile on the debug address: %d, %d bytes; want 200 and a gzipped profile", code, len(body))
	}
	if code, body := get("http://" + m[1] + "/debug/pprof/"); code != 200 || !strings.Contains(string(body), "goroutine") {
		t.Errorf("profile index on the debug address: %d %.200s", code, body)
	}
	public := strings.TrimSuffix(s.url, "/graphql")
	if code, body := get(public + "/debug/pprof/"); code == 200 && strings.Contains(string(body), "goroutine") {
		t.Errorf("the public address serves the profiles: %d %.200s", code, body)
	}
	s.stop(t)
}
