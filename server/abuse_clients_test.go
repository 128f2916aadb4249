package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/store"
)

// Client identity end to end: an IPv6 client is its /64
// (Config.ClientIPv6Prefix), for every share and for the rate limit.
//
// This machine's IPv6 loopback has one address, ::1, and no other IPv6
// address can be bound without changing the machine's network: so the
// connections are counted end to end from [::1] (one /64), and two
// addresses of one /64 against two /64s are shown to the real handler as
// the request's remote address (what net/http sets from the socket).
// clientKey itself is TestClientKey's.

// TestAbuseIPv6Connections: a server listening on [::1] and 127.0.0.1;
// the loopback ::1 opens its share of silent connections, counted for
// its /64 (::/64), and its next is answered 429; an honest client on
// 127.0.0.9 is served within 1 s meanwhile.
func TestAbuseIPv6Connections(t *testing.T) {
	ln6, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback to listen on: %v", err)
	}
	ln4, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	served := make(chan error, 2)
	go func() { served <- hs.Serve(srv.Listener(ln6)) }()
	go func() { served <- hs.Serve(srv.Listener(ln4)) }()
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		for range 2 {
			if err := <-served; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("Serve: %v", err)
			}
		}
	})
	b := &apitest.Bundle{Base: "http://" + ln4.Addr().String(), URL: "http://" + ln4.Addr().String() + "/graphql", Server: srv, HTTP: http.DefaultClient}
	v6 := &apitest.Bundle{Base: "http://" + ln6.Addr().String(), Server: srv}
	before := takeBaseline(t)
	stop := watchRSS(t)

	var conns []net.Conn
	for range cfg.MaxConnectionsPerClient {
		conns = append(conns, mustDialFrom(t, v6, "::1"))
	}
	connsOf(t, b, "::/64", int64(cfg.MaxConnectionsPerClient))
	c := mustDialFrom(t, v6, "::1")
	conns = append(conns, c)
	resp, body, err := rawAnswer(c, 10*time.Second)
	if err != nil {
		t.Fatalf("::1's connection past its share: %v", err)
	}
	if err := checkConnRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
		t.Fatalf("::1's connection past its share: %v", err)
	}
	t.Logf("%d connections of ::1 counted for ::/64; the next answered %d: %s", cfg.MaxConnectionsPerClient, resp.StatusCode, body)
	t.Logf("the honest client meanwhile: page %s, export %s, subscription %s",
		honestPage(t, b, "127.0.0.9"), honestExport(t, b, "127.0.0.9"), honestSubscription(t, b, "127.0.0.9"))
	closeAll(conns)
	allClosed(t, b)
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestIPv6ClientIsItsNetwork: through the real handler, two addresses of
// one /64 share one rate limit and one share of exports; an address of
// another /64 has its own. With ClientIPv6Prefix 128, every address is
// its own client.
func TestIPv6ClientIsItsNetwork(t *testing.T) {
	t.Parallel()
	const (
		first  = "[2001:db8:0:1::1]:40000"
		second = "[2001:db8:0:1:ffff:ffff:ffff:ffff]:40001" // same /64
		other  = "[2001:db8:0:2::1]:40002"                  // next /64
	)
	ask := func(srv *server.Server, remote, target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w
	}
	count := "/graphql?query=%7Bcount(n%3A6)%7Btotal%7D%7D"

	for _, prefix := range []int{64, 128} {
		t.Run(fmt.Sprintf("rate limit, /%d", prefix), func(t *testing.T) {
			cfg := server.DefaultConfig()
			cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			cfg.RateLimit, cfg.RateBurst, cfg.ClientIPv6Prefix = 0.01, 1, prefix
			srv, err := server.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			want := map[string]int{first: http.StatusOK, second: http.StatusTooManyRequests, other: http.StatusOK}
			if prefix == 128 {
				want[second] = http.StatusOK
			}
			for _, remote := range []string{first, second, other} {
				if got := ask(srv, remote, count).Code; got != want[remote] {
					t.Errorf("a request from %s after one from %s: %d, want %d", remote, first, got, want[remote])
				}
			}
		})
	}

	t.Run("exports", func(t *testing.T) {
		st := &heldWalk{release: make(chan struct{}), walking: make(chan struct{}, 2)}
		cfg := server.DefaultConfig()
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		cfg.ExportStore = st
		srv, err := server.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		exports := poolOf(t, srv, apierror.PoolExports)
		done := make(chan int, 2)
		go func() { done <- ask(srv, first, "/export/8.csv").Code }()
		<-st.walking
		refused := ask(srv, second, "/export/8.csv")
		if refused.Code != http.StatusTooManyRequests || refused.Header().Get("Retry-After") == "" {
			t.Errorf("an export from %s while %s's runs: %d, Retry-After %q; want 429 with Retry-After: %s",
				second, first, refused.Code, refused.Header().Get("Retry-After"), refused.Body)
		}
		go func() { done <- ask(srv, other, "/export/8.csv").Code }()
		<-st.walking
		if held := exports.HeldBy("2001:db8:0:2::/64"); held != 1 {
			t.Errorf("the other /64 holds %d exports, want 1", held)
		}
		close(st.release)
		for range 2 {
			if code := <-done; code != http.StatusOK {
				t.Errorf("a running export ended %d", code)
			}
		}
		eventually.True(t, 10*time.Second, func() string {
			if held := exports.Held(); held != 0 {
				return fmt.Sprintf("%d exports held once all ended", held)
			}
			return ""
		})
	})
}

// heldWalk is a store whose N=8 is done and whose walk waits until
// release is closed, then yields nothing; walking is told of each walk.
type heldWalk struct {
	release chan struct{}
	walking chan struct{}
}

func (h *heldWalk) Board(_ context.Context, n int) (store.Board, error) {
	if n != 8 {
		return store.Board{}, nqueens.Errorf(nqueens.ENOTFOUND, "N=%d is not stored", n)
	}
	return store.Board{N: n, State: store.Done, StoresSolutions: true}, nil
}

func (h *heldWalk) Walk(ctx context.Context, _ store.WalkRequest, _ func([]byte) error) error {
	h.walking <- struct{}{}
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
