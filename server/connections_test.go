package server_test

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// TestListenerClosedStopsAccept: closing the listener ends an Accept that
// waits, with net.ErrClosed, as http.Server's shutdown needs.
func TestListenerClosedStopsAccept(t *testing.T) {
	t.Parallel()
	srv, err := server.New(server.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := srv.Listener(inner)
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	time.Sleep(50 * time.Millisecond) // let Accept wait
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-accepted:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept on a closed listener: %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept still waits 10 s after the listener was closed")
	}
}

// TestWebsocketsCountAsConnections: a websocket is counted against its
// client's connections for as long as it is open, and gives its place
// back when it closes.
func TestWebsocketsCountAsConnections(t *testing.T) {
	t.Parallel()
	const client = "127.0.0.7"
	b := apitest.Setup(t, func(c *server.Config) { c.MaxConnectionsPerClient, c.MaxIdleConnectionsPerClient = 2, 2 })
	ws := []*wsClient{dialWS(t, from(t, b, client), nil), dialWS(t, from(t, b, client), nil)}
	for _, w := range ws {
		w.init("")
	}
	connsOf(t, b, client, 2)
	resp, body, err := rawAnswer(mustDialFrom(t, b, client), 10*time.Second)
	if err != nil {
		t.Fatalf("a connection beside 2 websockets: %v", err)
	}
	if err := checkConnRefusal(resp, body, http.StatusTooManyRequests, "CONNECTIONS_PER_CLIENT"); err != nil {
		t.Fatalf("a connection beside 2 websockets, 2 per client: %v", err)
	}
	ws[0].c.CloseNow()
	connsOf(t, b, client, 1)
	if err := keepAlive(mustDialFrom(t, b, client)); err != nil {
		t.Fatalf("a connection once a websocket closed: %v", err)
	}
	if held := pool(t, b, apierror.PoolConnections).HeldBy(client); held != 2 {
		t.Errorf("%s holds %d connections, want 2 (a websocket and a keep-alive)", client, held)
	}
}
