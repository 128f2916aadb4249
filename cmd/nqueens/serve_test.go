package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/oeis"
)

// TestServe starts the real binary, asks it a query over HTTP and stops it
// with SIGTERM: it must shut down gracefully and exit 0.
func TestServe(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--max-page-size", "50")
	cmd.Env = append(os.Environ(), "NQUEENS_REQUEST_TIMEOUT=5s", "NQUEENS_ADMIN_TOKEN=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v; stderr:\n%s", err, stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("first line %q has no address", line)
	}
	url := strings.Fields(line[i:])[0]
	go io.Copy(io.Discard, stdout)

	resp, err := http.Get(strings.TrimSuffix(url, "/graphql") + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	post := func(q string) string {
		resp, err := http.Post(url, "application/json", strings.NewReader(q))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	want := strconv.FormatUint(oeis.MustLoad(t)[10].Total, 10)
	if got := post(`{"query":"{ count(n: 10) { total } }"}`); !strings.Contains(got, `"total":"`+want+`"`) {
		t.Errorf("count(10): %s", got)
	}
	// The flag set the page size limit.
	if got := post(`{"query":"{ solutions(n: 10, first: 51) { totalCount } }"}`); !strings.Contains(got, "from 0 to 50") {
		t.Errorf("first: 51 with --max-page-size 50: %s", got)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Fatalf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("no exit 15s after SIGTERM; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped") {
		t.Errorf("stderr lacks the shutdown log:\n%s", stderr.String())
	}
}

func TestServeBadSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  []string
		args []string
		says string
	}{
		{[]string{"NQUEENS_MAX_PAGE_SIZE=lots"}, nil, "NQUEENS_MAX_PAGE_SIZE"},
		{[]string{"NQUEENS_REQUEST_TIMEOUT=10"}, nil, "NQUEENS_REQUEST_TIMEOUT"},
		{nil, []string{"--max-page-size", "0"}, "--max-page-size"},
		{nil, []string{"--depth-limit", "-1"}, "--depth-limit"},
		{nil, []string{"extra"}, "no arguments"},
		{nil, []string{"--addr", "127.0.0.1:99999"}, "99999"},
	} {
		cmd := exec.Command(binary, append([]string{"serve"}, tt.args...)...)
		cmd.Env = append(os.Environ(), tt.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(stderr.String(), tt.says) {
			t.Errorf("serve %v with %v: %v, stderr %q; want a failure naming %s", tt.args, tt.env, err, stderr.String(), tt.says)
		}
	}
}
