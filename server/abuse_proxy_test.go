package server_test

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// The attacks on a server behind a proxy (Config.TrustedProxies): the
// proxy is not one client that everyone behind it shares, and nobody else
// can pose as a client by sending X-Forwarded-For. The proxy here is the
// loopback address 127.0.0.2; tests through a real nginx are in
// nginx_test.go.

const proxyAddr = "127.0.0.2"

func behindProxy(c *server.Config) {
	c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix(proxyAddr + "/32")}
}

// statusFrom sends GET /graphql on a new connection from the loopback
// address ip, with X-Forwarded-For xff when not "", and returns the
// answer's status.
func statusFrom(t *testing.T, b *apitest.Bundle, ip, xff string) int {
	t.Helper()
	c := mustDialFrom(t, b, ip)
	defer c.Close()
	req := "GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
	if xff != "" {
		req += "X-Forwarded-For: " + xff + "\r\n"
	}
	if _, err := fmt.Fprint(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, _, err := rawAnswer(c, 10*time.Second)
	if err != nil {
		t.Fatalf("GET from %s, X-Forwarded-For %q: %v", ip, xff, err)
	}
	return resp.StatusCode
}

// TestAbuseRateLimitBehindProxy: through the trusted proxy each client has
// its own rate: one client past its burst is refused, the next one behind
// the same proxy is served. A client that is not the proxy and forges
// X-Forwarded-For spends its own rate, not the forged address's.
func TestAbuseRateLimitBehindProxy(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, behindProxy, func(c *server.Config) { c.RateLimit, c.RateBurst = 0.01, 3 })

	var first []int
	for range 4 {
		first = append(first, statusFrom(t, b, proxyAddr, "192.0.2.1"))
	}
	if want := []int{200, 200, 200, 429}; !slices.Equal(first, want) {
		t.Fatalf("192.0.2.1 through the proxy: statuses %v, want %v", first, want)
	}
	if got := statusFrom(t, b, proxyAddr, "192.0.2.2"); got != http.StatusOK {
		t.Errorf("192.0.2.2 through the proxy after 192.0.2.1 was refused: %d, want 200", got)
	}

	var forged []int
	for range 4 {
		forged = append(forged, statusFrom(t, b, "127.0.0.3", "192.0.2.3"))
	}
	if want := []int{200, 200, 200, 429}; !slices.Equal(forged, want) {
		t.Errorf("127.0.0.3 (not a proxy) forging X-Forwarded-For: statuses %v, want %v (its own rate)", forged, want)
	}
	var honest []int
	for range 3 {
		honest = append(honest, statusFrom(t, b, proxyAddr, "192.0.2.3"))
	}
	if want := []int{200, 200, 200}; !slices.Equal(honest, want) {
		t.Errorf("192.0.2.3 through the proxy after 127.0.0.3 forged its address: statuses %v, want %v (its whole burst)", honest, want)
	}
}

// TestAbuseConnectionsBehindProxy: the proxy opens more connections than
// one client's share, for the many clients behind it: all are served, up
// to the total. Another address at its share is still refused.
func TestAbuseConnectionsBehindProxy(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, behindProxy, func(c *server.Config) {
		c.MaxConnections, c.MaxConnectionsPerClient, c.MaxIdleConnectionsPerClient = 16, 2, 1
		c.ReadHeaderTimeout = time.Minute // the silent connections stay for the test
	})
	var conns []net.Conn
	for range 6 {
		conns = append(conns, mustDialFrom(t, b, proxyAddr))
	}
	idleAre(t, b, func(st server.ConnectionStats) bool { return st.Open == 6 }, "the proxy's 6 open")
	for i, c := range conns {
		if err := keepAlive(c); err != nil {
			t.Errorf("the proxy's connection %d of 6 (one client's share is 2): %v", i+1, err)
		}
	}

	for range 2 {
		mustDialFrom(t, b, "127.0.0.3")
	}
	connsOf(t, b, "127.0.0.3", 2)
	resp, body, err := rawAnswer(mustDialFrom(t, b, "127.0.0.3"), 10*time.Second)
	if err != nil {
		t.Fatalf("a 3rd connection of 127.0.0.3: %v", err)
	}
	if err := checkConnRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
		t.Errorf("a 3rd connection of 127.0.0.3, not a proxy: %v", err)
	}
}
