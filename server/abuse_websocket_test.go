package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// TestAbuseWebsocketHandshakes: 400 websockets whose connection_init
// payload is not a JSON object are closed with 4400, and 40 that send
// nothing with 4408 once the init timeout has passed; then the process's
// open file descriptors are back at their baseline, within 10 s of the
// attack's start, and /healthz still answers. Each attacking client closes
// its end only once the server has closed the socket (or after 30 s), so
// descriptors back at the baseline mean the server closed every socket.
//
// Not parallel: it counts the descriptors of the whole process, which
// other tests would move. Tests that do not call t.Parallel run before the
// parallel ones start, so this one runs alone.
func TestAbuseWebsocketHandshakes(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to count open files: %v", err)
	}
	const badInits, silent = 400, 40
	b := apitest.Setup(t, func(c *server.Config) {
		c.WSInitTimeout = 3 * time.Second
		// The test is about leaks, not the caps.
		c.WSMaxConnections, c.WSMaxConnectionsPerClient = 1000, 1000
	})
	checkHealthz(t, b) // the client's keep-alive connection is part of the baseline
	baseline := openFiles(t)

	payloads := []string{`"Bearer x"`, `[1,2]`, `42`, `true`, `"{}"`}
	start := time.Now()
	errs := make(chan error, badInits+silent)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var badClosed time.Duration // when the last bad handshake was closed, since start
	for i := range badInits + silent {
		wg.Go(func() {
			if i < badInits {
				init := fmt.Sprintf(`{"type":"connection_init","payload":%s}`, payloads[i%len(payloads)])
				if i%10 == 0 {
					init = `connection_init` // not JSON at all
				}
				errs <- attack(b, init, 4400)
				mu.Lock()
				badClosed = max(badClosed, time.Since(start))
				mu.Unlock()
			} else {
				errs <- attack(b, "", 4408)
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed++; failed <= 5 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d attacking connections were not closed as they should be", failed, badInits+silent)
	}

	var now int
	for {
		if now = openFiles(t); now <= baseline {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d open files 10 s after the attack began, %d before it: websockets were left open", now, baseline)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d bad handshakes, all closed %s after the attack began, and %d silent ones: open files back at %d (baseline %d) after %s",
		badInits, badClosed.Round(time.Millisecond), silent, now, baseline, time.Since(start).Round(time.Millisecond))
	checkHealthz(t, b)
}

// attack opens a websocket, sends init (nothing when ""), and waits for
// the server to close it: an error unless it closes with code.
func attack(b *apitest.Bundle, init string, code websocket.StatusCode) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(b), &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPClient: b.HTTP})
	if err != nil {
		return fmt.Errorf("dialing: %w", err)
	}
	defer c.CloseNow()
	if init != "" {
		if err := c.Write(ctx, websocket.MessageText, []byte(init)); err != nil {
			return fmt.Errorf("sending %s: %w", init, err)
		}
	}
	_, msg, err := c.Read(ctx)
	var ce websocket.CloseError
	switch {
	case err == nil:
		return fmt.Errorf("after %q the server sent %s; want close %d", init, msg, code)
	case !errors.As(err, &ce) || ce.Code != code:
		return fmt.Errorf("after %q: %v; want close %d", init, err, code)
	}
	return nil
}

// openFiles counts the process's open file descriptors.
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

func checkHealthz(t *testing.T, b *apitest.Bundle) {
	t.Helper()
	if r := b.Raw(t, "GET", b.Base+"/healthz", nil); r.Status != 200 || string(r.Raw) != "ok\n" {
		t.Fatalf("/healthz: %d %q", r.Status, r.Raw)
	}
}
