package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

const (
	healthcheckSynopsis = "[--addr HOST:PORT] [--url URL] [--timeout D]"
	defaultAddr         = ":8080"
)

// healthcheckOptions are what healthcheck's settings set; --addr and
// --admin-token are serve's, read from the same variables.
type healthcheckOptions struct {
	addr, url, adminToken string
	timeout               time.Duration
}

func newHealthcheckOptions() *healthcheckOptions {
	return &healthcheckOptions{addr: defaultAddr, timeout: 3 * time.Second}
}

// settings is healthcheck's settings table.
func (o *healthcheckOptions) settings() []setting {
	return []setting{
		{flag: "addr", into: &o.addr, help: "the `HOST:PORT` serve listens on; asked at /readyz on the loopback address when the host is empty or unspecified"},
		{flag: "url", env: "NQUEENS_HEALTHCHECK_URL", into: &o.url, dflt: "/readyz of --addr", help: "the readiness `URL` to ask instead of --addr's, e.g. http://10.0.0.5:8080/readyz"},
		{flag: "timeout", env: "NQUEENS_HEALTHCHECK_TIMEOUT", into: &o.timeout, help: "how long the server has to answer"},
		{flag: "admin-token", into: &o.adminToken, help: "`TOKEN` sent to a server on the loopback address only, so that a failed check says why; prefer the variable: a flag shows in the process list"},
	}
}

// runHealthcheck asks a server's /readyz whether it is ready and exits 0
// if it answers 200, 1 otherwise with the reason in one line. It is the
// probe of the Docker image, which has no shell and no HTTP client to run
// one: by default it asks the server this container's settings describe,
// at http://127.0.0.1:PORT/readyz for serve's --addr (NQUEENS_ADDR).
func runHealthcheck(ctx context.Context, args []string, c console) error {
	o := newHealthcheckOptions()
	t := newSettings("healthcheck", o.settings())
	pos, err := t.parse(args, c, healthcheckSynopsis+"\n\nExit 0 when the server answers /readyz with 200 (ready), 1 otherwise with the reason on stderr.")
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("healthcheck takes no arguments, got %s", strings.Join(pos, " "))
	}
	if o.timeout <= 0 {
		return usagef("%s must be positive, got %s", t.name("timeout"), o.timeout)
	}
	u, err := readinessURL(t, o.addr, o.url)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := askReady(ctx, u, o.adminToken); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s: no answer within %s", u, o.timeout)
		}
		return fmt.Errorf("%s: %w", u, err)
	}
	_, err = fmt.Fprintf(c.stdout, "ready: %s\n", u)
	return err
}

// readinessURL is the URL to ask: target when given, else /readyz of the
// server listening on addr, reached over the loopback address when addr
// names no host or every host (":8080", "0.0.0.0:8080", "[::]:8080").
// Messages name the settings of t.
func readinessURL(t *settingsTable, addr, target string) (*url.URL, error) {
	if target != "" {
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("%s must be an http:// or https:// URL, got %q", t.name("url"), target)
		}
		return u, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return nil, usagef("%s must be HOST:PORT (e.g. :8080), got %q", t.name("addr"), addr)
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.IsUnspecified() && ip.To4() != nil:
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port), Path: "/readyz"}, nil
}

// askReady asks u once: nil when it answers 200, else why not, with the
// failed checks /readyz names (and their reasons, which it gives to the
// admin token only).
func askReady(ctx context.Context, u *url.URL, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	// The token goes to this machine only: over the network it would
	// travel in the clear, or to a server that should not have it.
	if token != "" && isLoopback(u.Hostname()) {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, by the caller
		}
		return fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var report struct {
		Checks map[string]string `json:"checks"`
	}
	if json.Unmarshal(body, &report) != nil || len(report.Checks) == 0 {
		return fmt.Errorf("not ready: HTTP %s", resp.Status)
	}
	var failed []string
	for name, status := range report.Checks {
		if status != "ok" {
			failed = append(failed, name+" "+strings.Join(strings.Fields(status), " "))
		}
	}
	slices.Sort(failed)
	return fmt.Errorf("not ready: %s", strings.Join(failed, "; "))
}

// isLoopback reports whether host is this machine: localhost or a
// loopback address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
