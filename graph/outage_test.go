package graph_test

import (
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
)

// TestDatabaseUnavailable: when the database stops answering, every
// answer that needs it is UNAVAILABLE (not INTERNAL, not a hang), as the
// store classifies its errors (no other layer looks at them), the server
// stays up and answers what needs no database (validate, a solution's
// forms and symmetries, a done board read before). Postgres goes away behind a TCP proxy
// the test closes (existing connections cut, new ones refused: a closed
// port), and comes back on the same port: the server serves again by
// itself. SQLite, a file, cannot go away like a server; the test closes
// the store's pools under the running server instead (and so does a
// third case on Postgres).
func TestDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		u, _ := pgtest.Schema(t)
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		p := startProxy(t, "127.0.0.1:0", pu.Host)
		pu.Host = p.addr
		st := pgtest.Open(t, pu.String())
		checkOutage(t, st, p.stop, func() { p = startProxy(t, p.addr, p.target) })
	})
	t.Run("postgres-closed-pool", func(t *testing.T) {
		t.Parallel()
		st := pgtest.OpenSchema(t)
		checkOutage(t, st, func() { st.Close() }, nil)
	})
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		st := sqlitetest.OpenTemp(t)
		checkOutage(t, st, func() { st.Close() }, nil)
	})
}

func checkOutage(t *testing.T, st store.ReadCloser, down, up func()) {
	t.Helper()
	fill(t, st, 8, nil)
	b := serve(t, st)
	ref := oeis.MustLoad(t)
	total8 := strconv.FormatUint(ref[8].Total, 10)
	c := b.Page(t, "solutions", 8, map[string]any{"first": 3})
	if c.Source != "STORE" || *c.TotalCount != total8 {
		t.Fatalf("before the outage: %+v", c)
	}

	down()
	for _, q := range []string{
		`{ solutions(n: 8, first: 5) { edges { cursor } } }`,      // a stored board (its row is known): the page query fails
		`{ uniqueSolutions(n: 8, last: 5) { edges { cursor } } }`, // backward
		`{ solutionAt(n: 8, rank: 50) { placement } }`,            // a rank
		`{ board(n: 9) { state } }`,                               // a board row not read before
		`{ count(n: 11) { total } }`,                              // counts need the row first
		`{ boards { n state } }`,                                  // all rows
	} {
		start := time.Now()
		r := b.Post(t, apitest.Request{Query: q})
		if r.Code() != "UNAVAILABLE" || !strings.Contains(r.Message(), "unavailable") {
			t.Errorf("%s with the database down: %s", q, r.Raw)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %s with the database down", q, d)
		}
	}
	// What needs no database still works.
	var data struct {
		Validate struct{ Valid bool }
		Solution struct {
			OrbitSize  int
			Symmetries []struct{ Name string }
		}
	}
	b.Query(t, `{ validate(placement: [1, 3, 0, 2]) { valid } solution(placement: [1, 3, 0, 2]) { orbitSize symmetries { name } } }`, nil, &data)
	if !data.Validate.Valid || data.Solution.OrbitSize != 2 || len(data.Solution.Symmetries) != 8 {
		t.Errorf("solver-only queries with the database down: %+v", data)
	}
	// A done board never changes: its row, read before the outage, is
	// remembered, and what it says is served without the database.
	var done struct {
		Board struct {
			State string
			Total *string
		}
	}
	b.Query(t, `{ board(n: 8) { state total } }`, nil, &done)
	if done.Board.State != "DONE" || done.Board.Total == nil || *done.Board.Total != total8 {
		t.Errorf("board(n: 8), done and read before the outage, with the database down: %+v", done.Board)
	}
	if logs := b.Logs.String(); strings.Contains(logs, "internal error") {
		t.Errorf("the outage was logged as an internal error:\n%s", logs)
	}

	if up == nil {
		return
	}
	up()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := b.Post(t, apitest.Request{Query: `{ solutions(n: 8, first: 3) { totalCount edges { cursor } } }`})
		if len(r.Errors) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing 10s after the database came back: %s", r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// proxy forwards TCP connections to target until stopped.
type proxy struct {
	addr, target string
	ln           net.Listener
	mu           sync.Mutex
	conns        []net.Conn
	wg           sync.WaitGroup
}

func startProxy(t *testing.T, addr, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), target: target, ln: ln}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			p.wg.Go(func() { io.Copy(u, c); u.Close() })
			p.wg.Go(func() { io.Copy(c, u); c.Close() })
		}
	})
	t.Cleanup(p.stop)
	return p
}

// stop closes the listener and cuts every connection.
func (p *proxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
