package server_test

import (
	"errors"
	"net"
	"testing"
	"time"

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
