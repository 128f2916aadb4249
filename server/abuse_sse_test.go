package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/server"
)

// The attacks on event streams (GraphQL over Server-Sent Events, sse.go):
// many streams from one address, and clients that never read theirs.
// Each also checks what every attack does (aftermath_test.go).

// honestStream subscribes to boardProgress(n: 6) from ip over an event
// stream and fails the test unless its first event comes within
// honestWithin.
func honestStream(t *testing.T, b *apitest.Bundle, ip string) time.Duration {
	t.Helper()
	c := from(t, b, ip)
	defer c.HTTP.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	s := c.Stream(t, ctx, apitest.Request{Query: `subscription { boardProgress(n: 6) { n } }`})
	defer s.Close()
	var m struct{ BoardProgress struct{ N int } }
	if !s.Next(t, &m) || m.BoardProgress.N != 6 {
		t.Fatalf("the honest client's event stream: %+v", m)
	}
	took := time.Since(start)
	if took > honestWithin {
		t.Errorf("the honest client at %s waited %s for its event stream's first event, more than %s", ip, took, honestWithin)
	}
	return took
}

// TestAbuseSSEStreamsPerClient: one address opens 40 event streams at
// once: its share (16) is served, the other 24 are refused with 429
// RATE_LIMITED (STREAMS_PER_CLIENT) and Retry-After before any stream
// starts, and go on being refused while it holds its share; a client on
// another address is served meanwhile, streams included. Once the
// attacker's streams close, its share is free again.
func TestAbuseSSEStreamsPerClient(t *testing.T) {
	const attempts = 40
	b, _, _ := setupCounted(t)
	share := server.DefaultConfig().SSEMaxStreamsPerClient
	before := takeBaseline(t)
	stop := watchRSS(t)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	attacker := from(t, b, "127.0.0.30")
	streams := make([]*apitest.EventStream, attempts)
	statuses := make([]int, attempts)
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Go(func() {
			s, err := attacker.OpenStream(ctx, apitest.Request{Query: endless})
			if err != nil {
				t.Errorf("stream %d: %v", i, err)
				return
			}
			statuses[i] = s.Resp.StatusCode
			if s.Resp.StatusCode == http.StatusOK {
				streams[i] = s
				return
			}
			body, _ := io.ReadAll(s.Resp.Body)
			s.Close()
			if s.Resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"reason":"STREAMS_PER_CLIENT"`) ||
				!strings.Contains(string(body), fmt.Sprintf("your address has %d event streams open", share)) {
				t.Errorf("refusal %d: %v %s", s.Resp.StatusCode, s.Resp.Header, body)
			}
		})
	}
	wg.Wait()
	closeAll := func() {
		for _, s := range streams {
			if s != nil {
				s.Close()
			}
		}
	}
	defer closeAll()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	t.Logf("%d event streams from one address at once: %d served, %d refused with 429", attempts, count[200], count[429])
	if count[http.StatusOK] != share || count[http.StatusTooManyRequests] != attempts-share {
		t.Fatalf("statuses %v; want %d streams served and the rest refused with 429", count, share)
	}
	// Each served stream is live: its first event came.
	for i, s := range streams {
		if s != nil {
			if e := nextEvent(t, s); e.Name != "next" {
				t.Fatalf("stream %d: %+v", i, e)
			}
		}
	}

	// The attacker goes on asking while the honest client is served.
	attackCtx, endAttack := context.WithCancel(ctx)
	var attack sync.WaitGroup
	var retried, served int
	var mu sync.Mutex
	for range 4 {
		attack.Go(func() {
			for attackCtx.Err() == nil {
				s, err := attacker.OpenStream(attackCtx, apitest.Request{Query: endless})
				if err != nil {
					continue // the attack ended
				}
				io.Copy(io.Discard, s.Resp.Body)
				s.Close()
				mu.Lock()
				retried++
				if s.Resp.StatusCode != http.StatusTooManyRequests {
					served++
				}
				mu.Unlock()
			}
		})
	}
	honest := honestStream(t, b, "127.0.0.9")
	honestOnce(t, b)
	endAttack()
	attack.Wait()
	t.Logf("the honest client's event stream: first event after %s; %d more streams refused meanwhile", honest.Round(time.Millisecond), retried)
	if served > 0 {
		t.Errorf("%d streams past the client's share were served", served)
	}

	closeAll()
	eventually.True(t, 10*time.Second, func() string {
		if held := pool(t, b, apierror.PoolStreams).Held(); held > 0 {
			return fmt.Sprintf("%d streams held after the attacker closed them", held)
		}
		return ""
	})
	again := attacker.Stream(t, ctx, apitest.Request{Query: endless})
	if e := nextEvent(t, again); e.Name != "next" {
		t.Fatalf("the attacker's stream once its share is free: %+v", e)
	}
	again.Close()
	attacker.HTTP.CloseIdleConnections()
	withinBudget(t, stop())
	before.restored(t, 8<<20)
}

// TestAbuseSSENeverReads: clients on 2 addresses that never read their
// streams, with receive buffers of 4 KiB, ask for answers of 8 MB (three
// pages of 1,000 solutions with their pictures, computed at once here;
// the kernel's buffers hold 4 MB of a stream on its way):
// each stream is cut once a write has waited SSEWriteTimeout (1 s in the
// test), without "complete", and gives back its share and the memory its
// answer held; another client's stream is served meanwhile.
func TestAbuseSSENeverReads(t *testing.T) {
	const streams, writeTimeout = 2, time.Second
	b := apitest.Setup(t, func(c *server.Config) {
		c.SSEWriteTimeout = writeTimeout
		// Every answer computed at once, whatever the machine's load:
		// what is tested is the stall of their writes.
		c.AnswerSlots, c.AdmissionWait = streams, 30*time.Second
		c.InflightBytes, c.InflightBytesPerClient, c.ComplexityLimit = 256<<20, 128<<20, 50000
	})
	before := takeBaseline(t)
	stop := watchRSS(t)

	addr := strings.TrimPrefix(b.Base, "http://")
	const page = `solutions(n: 12, first: 1000) { edges { node { placement svg } } }`
	query := `{"query":"{ a: ` + page + ` b: ` + page + ` c: ` + page + ` }"}`
	request := "POST /graphql HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(query), query)
	dialer := &net.Dialer{
		// A small receive buffer, set before the connection is made so
		// that the window it announces stays small.
		Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			if err != nil {
				return err
			}
			return serr
		},
	}
	conns := make([]net.Conn, streams)
	start := time.Now()
	for i := range conns {
		d := *dialer
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(fmt.Sprintf("127.0.0.%d", 31+i))}
		c, err := d.DialContext(t.Context(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	streamsPool, memory := pool(t, b, apierror.PoolStreams), pool(t, b, apierror.PoolMemory)
	eventually.True(t, 10*time.Second, func() string {
		if held := streamsPool.Held(); held < streams {
			return fmt.Sprintf("%d streams running of %d", held, streams)
		}
		return ""
	})
	t.Logf("%d streams running, holding %.1f MiB", streamsPool.Held(), float64(memory.Held())/(1<<20))
	// The honest client's stream (its answers wait for a core: this test
	// lets the heavy answers take both, which AnswerSlots would not).
	t.Logf("the honest client's event stream during the attack: first event after %s", honestStream(t, b, "127.0.0.9").Round(time.Millisecond))

	// Nothing is read: every stream's write waits, then is dropped.
	eventually.True(t, writeTimeout+20*time.Second, func() string {
		if held := streamsPool.Held(); held > 0 {
			return fmt.Sprintf("%d streams still held by clients that read nothing", held)
		}
		return ""
	})
	took := time.Since(start)
	t.Logf("every stream dropped %s after it began (write timeout %s)", took.Round(time.Millisecond), writeTimeout)
	if took < writeTimeout {
		t.Errorf("the streams were dropped after %s, before the write timeout (%s)", took, writeTimeout)
	}
	eventually.True(t, 10*time.Second, func() string {
		if held := memory.Held(); held > 0 {
			return fmt.Sprintf("%d bytes of memory still held", held)
		}
		return ""
	})
	// What reached each client: the stream began, and was cut.
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(got), "HTTP/1.1 200 OK\r\n") || !strings.Contains(string(got), "event: next\ndata: {") {
			t.Errorf("client %d got %.200q; want its stream begun", i, got)
		}
		t.Logf("client %d got %d bytes before its stream was cut", i, len(got))
		if strings.Contains(string(got), "event: complete") {
			t.Errorf("client %d got its whole stream (%d bytes) though it read nothing until the stream was cut", i, len(got))
		}
	}
	withinBudget(t, stop())
	before.restored(t, 16<<20)
}
