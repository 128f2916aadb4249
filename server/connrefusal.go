package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// A connection the Listener refuses is answered at the HTTP level, before
// net/http sees it: 429 or 503 with Retry-After, Connection: close and the
// GraphQL error of the refusal, then closed. Its answer is written on a
// goroutine of its own, so that the accept loop never waits for a peer,
// and those goroutines are bounded.
const (
	// refusalWriters bounds the refusals being written at once: each
	// holds a descriptor for at most refusalRead + refusalWrite +
	// refusalLinger. Past it a refused connection is closed unanswered.
	refusalWriters = 1024
	// refusalRead is how long a refusal waits for the first bytes of the
	// request: a client answered before it has sent its request may take
	// the answer for a stray one (Go's does), and a client that sends at
	// once has done so by then. A silent connection is answered after it.
	refusalRead = 100 * time.Millisecond
	// refusalWrite bounds the writing of the answer, a few hundred bytes
	// into the socket's empty send buffer.
	refusalWrite = time.Second
	// refusalLinger is how long the rest of the request is read and
	// dropped once the answer is sent: closing with unread bytes would
	// reset the connection, and the peer might lose the answer.
	refusalLinger = 250 * time.Millisecond
	// refusalDrain bounds the bytes read from a refused connection.
	refusalDrain = 64 << 10
)

// refuse answers and closes c, which ref refused, without waiting for it.
func (cs *connections) refuse(c net.Conn, ref *quota.Refusal) {
	select {
	case cs.refusing <- struct{}{}:
	default:
		cs.unanswered.Add(1)
		_ = c.Close()
		return
	}
	go func() {
		defer func() { <-cs.refusing }()
		writeRefusal(c, ref)
	}()
}

// writeRefusal answers c with the HTTP refusal of ref and closes it.
func writeRefusal(c net.Conn, ref *quota.Refusal) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(refusalRead))
	var first [1024]byte
	if _, err := c.Read(first[:]); err != nil && !isTimeout(err) {
		return // the peer is gone
	}
	_ = c.SetWriteDeadline(time.Now().Add(refusalWrite))
	if _, err := c.Write(refusalAnswer(ref)); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(refusalLinger))
	_, _ = io.CopyN(io.Discard, c, refusalDrain)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// refusalAnswer is the whole HTTP answer to a connection ref refused.
func refusalAnswer(ref *quota.Refusal) []byte {
	e := apierror.Refused(ref)
	status := refusalStatus(e.Code)
	body := errorBody(e.Code, e.Reason, e.Message)
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	b.WriteString("Content-Type: application/json; charset=utf-8\r\n")
	b.WriteString("Cache-Control: no-store\r\n")
	b.WriteString("Retry-After: " + strconv.Itoa(apierror.RetryAfterSeconds(e.RetryAfter)) + "\r\n")
	b.WriteString("Connection: close\r\n")
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	b.Write(body)
	return b.Bytes()
}
