package server_test

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/server"
)

// stallBody opens a request from ip whose body of size bytes never comes:
// it holds its admission (its announced body and the request's overhead)
// until the returned connection is closed. It returns once the server
// holds it.
func stallBody(t *testing.T, b *apitest.Bundle, ip string, size int) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c, err := d.Dial("tcp", strings.TrimPrefix(b.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	pool := poolNamed(t, b, apierror.PoolMemory)
	before := pool.HeldBy(ip)
	fmt.Fprintf(c, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"query\": ", size)
	eventually.True(t, 10*time.Second, func() string {
		if pool.HeldBy(ip) <= before {
			return fmt.Sprintf("%s holds %d bytes", ip, pool.HeldBy(ip))
		}
		return ""
	})
	return c
}

// TestPricedRequestsRefused: the memory an answer will take is held before
// any resolver runs; when it does not fit the request is refused with the
// status that says why, whatever media type the client takes: 400
// MEMORY_PER_REQUEST for a request larger than a client's share, 429 with
// Retry-After when its client's requests hold its share, 503 with
// Retry-After when all clients hold the total.
func TestPricedRequestsRefused(t *testing.T) {
	t.Parallel()
	const share, total = 256 << 10, 1 << 20
	b := apitest.Setup(t, func(c *server.Config) {
		c.InflightBytesPerClient, c.InflightBytes, c.AdmissionWait = share, total, 300*time.Millisecond
	})
	small := apitest.Request{Query: "{ solutions(n: 8, first: 3) { nodes { placement svg } } }"}
	check := func(what string, r *apitest.Response, status int, reason string, retry bool) {
		t.Helper()
		if r.Status != status || r.Reason() != reason || (r.Header.Get("Retry-After") != "") != retry {
			t.Errorf("%s: status %d, reason %q, Retry-After %q; want %d %s (Retry-After %t): %.300s",
				what, r.Status, r.Reason(), r.Header.Get("Retry-After"), status, reason, retry, r.Raw)
		}
	}
	for _, accept := range []string{apitest.Accept, "application/json"} {
		// 100 pictures of N=16 hold about 2 MB while answered.
		r := b.Post(t, apitest.Request{Query: "{ solutions(n: 16, first: 100) { nodes { svg } } }"}, "Accept", accept)
		check("a request larger than a share, "+accept, r, http.StatusBadRequest, "MEMORY_PER_REQUEST", false)
		if !strings.Contains(r.Message(), "more than the 256 KiB one client may hold at once") {
			t.Errorf("the message: %s", r.Message())
		}
	}

	// The client's own stalled request holds most of its share.
	stalled := stallBody(t, b, "127.0.0.1", 200_000)
	for _, accept := range []string{apitest.Accept, "application/json"} {
		check("a client at its share, "+accept, b.Post(t, small, "Accept", accept), http.StatusTooManyRequests, "MEMORY_PER_CLIENT", true)
	}
	other := from(t, b, "127.0.0.5")
	if r := other.Post(t, small); r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Errorf("another client: %d %.300s", r.Status, r.Raw)
	}
	stalled.Close()

	// Four other clients hold nearly all of the total: a fifth is
	// admitted, but its answer does not fit.
	for i := range 4 {
		stallBody(t, b, fmt.Sprintf("127.0.0.%d", 10+i), 240_000)
	}
	check("the server at its total", from(t, b, "127.0.0.4").Post(t, small), http.StatusServiceUnavailable, "MEMORY_TOTAL", true)
}

// poolNamed is the server's pool called name.
func poolNamed(t *testing.T, b *apitest.Bundle, name string) *quota.Pool {
	t.Helper()
	for _, p := range b.Server.Pools() {
		if p.Name() == name {
			return p
		}
	}
	t.Fatalf("the server has no pool %q", name)
	return nil
}
