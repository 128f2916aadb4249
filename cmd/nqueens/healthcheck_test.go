package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
)

// healthcheck runs `nqueens healthcheck` with env and args and checks the
// shape of its answer: exit 0 with "ready: URL" on stdout, or exit code
// want with one line on stderr; it returns that line.
func healthcheck(t *testing.T, want int, env []string, args ...string) string {
	t.Helper()
	r := nqueensEnv(t, env, append([]string{"healthcheck"}, args...)...)
	switch {
	case r.code != want:
		t.Fatalf("healthcheck %v with %v: exit %d, want %d; stdout %q, stderr %q", args, env, r.code, want, r.stdout, r.stderr)
	case want == exitOK && (!strings.HasPrefix(r.stdout, "ready: http://") || r.stderr != ""):
		t.Fatalf("healthcheck %v: stdout %q, stderr %q; want \"ready: URL\"", args, r.stdout, r.stderr)
	case want != exitOK && (r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "nqueens healthcheck: ")):
		t.Fatalf("healthcheck %v: stdout %q, stderr %q; want one line on stderr", args, r.stdout, r.stderr)
	}
	return r.stderr
}

// TestHealthcheck runs the probe against servers: one not ready
// (serve --migrate=false over an empty database), then ready, found from
// NQUEENS_ADDR as in the Docker image; the reasons of a failed check only
// with the admin token.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	const token = "probe-token"
	env := []string{"NQUEENS_SQLITE_PATH=" + filepath.Join(t.TempDir(), "nqueens.db")}
	s := startServe(t, env, "--migrate=false")
	readyz := strings.TrimSuffix(s.url, "/graphql") + "/readyz"

	why := healthcheck(t, exitFailure, env, "--url", readyz)
	if want := readyz + ": not ready: migrations failed; workers failed\n"; !strings.HasSuffix(why, want) {
		t.Errorf("not ready, no token: %q; want it to end %q", why, want)
	}
	s.stop(t)
	s = startServe(t, append(env, "NQUEENS_ADMIN_TOKEN="+token), "--migrate=false")
	readyz = strings.TrimSuffix(s.url, "/graphql") + "/readyz"
	why = healthcheck(t, exitFailure, []string{"NQUEENS_ADMIN_TOKEN=" + token, "NQUEENS_HEALTHCHECK_URL=" + readyz})
	for _, want := range []string{"not ready: migrations the schema is at version 0, this binary expects", "; workers off: River's tables are missing"} {
		if !strings.Contains(why, want) {
			t.Errorf("not ready, with the token: %q; want %q", why, want)
		}
	}
	s.stop(t)

	s = startServe(t, env)
	addr := strings.TrimPrefix(strings.TrimSuffix(s.url, "/graphql"), "http://")
	_, port, _ := net.SplitHostPort(addr)
	eventually.True(t, 10*time.Second, func() string {
		r := nqueensEnv(t, []string{"NQUEENS_ADDR=:" + port}, "healthcheck")
		if r.code != exitOK || r.stdout != "ready: http://127.0.0.1:"+port+"/readyz\n" {
			return "healthcheck of a migrated server: " + r.stdout + r.stderr
		}
		return ""
	})
	s.stop(t)
	why = healthcheck(t, exitFailure, nil, "--addr", addr)
	if !strings.Contains(why, "/readyz: no answer: ") || !strings.Contains(why, "connection refused") {
		t.Errorf("no server: %q", why)
	}
}

// TestHealthcheckTimeout: a server that accepts and never answers fails
// the check once --timeout has passed, not later.
func TestHealthcheckTimeout(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, unanswered, until the test ends
		}
	}()
	start := time.Now()
	why := healthcheck(t, exitFailure, nil, "--addr", ln.Addr().String(), "--timeout", "300ms")
	// The bound is the behaviour: a probe that hangs blocks Docker's next
	// one. The margin is for a loaded machine.
	if took := time.Since(start); !strings.Contains(why, "no answer within 300ms") || took > 10*time.Second {
		t.Errorf("a server that never answers: %q after %s", why, took)
	}
}

func TestHealthcheckBadUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  []string
		args []string
		says string
	}{
		{nil, []string{"--timeout", "0s"}, "--timeout (NQUEENS_HEALTHCHECK_TIMEOUT) must be positive"},
		{[]string{"NQUEENS_HEALTHCHECK_TIMEOUT=soon"}, nil, `NQUEENS_HEALTHCHECK_TIMEOUT="soon"`},
		{nil, []string{"--url", "localhost:8080/readyz"}, "--url (NQUEENS_HEALTHCHECK_URL) must be an http:// or https:// URL"},
		{[]string{"NQUEENS_ADDR=8080"}, nil, "--addr (NQUEENS_ADDR) must be HOST:PORT"},
		{nil, []string{"extra"}, "healthcheck takes no arguments"},
	} {
		if why := healthcheck(t, exitUsage, tt.env, tt.args...); !strings.Contains(why, tt.says) {
			t.Errorf("healthcheck %v with %v: %q; want %q", tt.args, tt.env, why, tt.says)
		}
	}
}

// TestReadinessURL: the URL asked for each listen address serve may have.
func TestReadinessURL(t *testing.T) {
	t.Parallel()
	settings := newSettings("healthcheck", newHealthcheckOptions().settings())
	for addr, want := range map[string]string{
		":8080":          "http://127.0.0.1:8080/readyz",
		"0.0.0.0:9000":   "http://127.0.0.1:9000/readyz",
		"[::]:8080":      "http://[::1]:8080/readyz",
		"10.1.2.3:8080":  "http://10.1.2.3:8080/readyz",
		"localhost:8081": "http://localhost:8081/readyz",
	} {
		u, err := readinessURL(settings, addr, "")
		if err != nil || u.String() != want {
			t.Errorf("readinessURL(%q) = %v, %v; want %s", addr, u, err, want)
		}
	}
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "127.0.0.53": true, "10.1.2.3": false, "example.com": false} {
		if isLoopback(host) != want {
			t.Errorf("isLoopback(%q) = %t", host, !want)
		}
	}
}
