package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// The websocket library reads a frame's payload lazily and counts its
// bytes against the read limit only as they come: a frame header that
// announces 2^60 bytes, with nothing after it, would hold the socket, its
// goroutines and its operations for as long as the peer likes, and a
// message trickled a byte at a time would too. So the connection under
// the library is wrapped: it follows the frame headers of RFC 6455
// (section 5.2) as their bytes arrive, refuses a message whose frames
// announce more than the message limit as soon as the header that passes
// it arrives (closed with 1009), and gives a message that has started
// arriving a time limit to arrive whole (closed with 1008 past it). Between
// messages a socket may be silent: the keep-alive bounds that.

// wsFrameError is why the frame guard stopped reading a socket, and the
// close code that says so.
type wsFrameError struct {
	code   websocket.StatusCode
	reason string // at most maxCloseReason bytes
}

func (e *wsFrameError) Error() string { return e.reason }

// wsFrameScanner follows the frames of a client's stream, fed the bytes
// as they arrive, in any pieces. It checks lengths only; the websocket
// library checks the rest of the protocol (opcodes, masks, fragments).
type wsFrameScanner struct {
	// limit is the most payload bytes one message's frames may announce
	// together (the library's compression is off: they are the message's
	// bytes).
	limit uint64

	hdr  [14]byte // the header being read: at most 2+8+4 bytes
	hdrN int      // its bytes read so far
	left uint64   // payload bytes of the current frame still to come
	// control is set while the current frame is a control frame (ping,
	// pong, close), which may come between a message's fragments; fin
	// while it is a message's final data frame.
	control, fin bool
	inMessage    bool   // a data message has begun and not ended
	msgBytes     uint64 // the payload its frames announced so far
	// started counts, in the last scan, the frames that began while
	// nothing was arriving: a message (or a control frame) starting.
	started int
}

// wsControlMax is the longest payload of a control frame (RFC 6455,
// section 5.5).
const wsControlMax = 125

// busy reports whether a frame or a message has begun and not ended.
func (s *wsFrameScanner) busy() bool { return s.hdrN > 0 || s.left > 0 || s.inMessage }

// scan follows b, the next bytes of the stream; an error says the stream
// broke a bound and must stop.
func (s *wsFrameScanner) scan(b []byte) *wsFrameError {
	s.started = 0
	for len(b) > 0 {
		if s.left > 0 {
			k := uint64(len(b))
			if k > s.left {
				k = s.left
			}
			b, s.left = b[k:], s.left-k
			if s.left == 0 {
				s.endFrame()
			}
			continue
		}
		if s.hdrN == 0 && !s.inMessage {
			s.started++
		}
		s.hdr[s.hdrN] = b[0]
		s.hdrN++
		b = b[1:]
		if s.hdrN < 2 || s.hdrN < wsHeaderLen(s.hdr[1]) {
			continue
		}
		if err := s.header(); err != nil {
			return err
		}
	}
	return nil
}

// wsHeaderLen is the length of a frame header whose second byte is b1.
func wsHeaderLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 { // masked: every client frame is
		n += 4
	}
	return n
}

// header takes the header just read whole.
func (s *wsFrameScanner) header() *wsFrameError {
	h := s.hdr[:s.hdrN]
	s.hdrN = 0
	fin, opcode := h[0]&0x80 != 0, h[0]&0x0f
	length := uint64(h[1] & 0x7f)
	switch length {
	case 126:
		length = uint64(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		length = binary.BigEndian.Uint64(h[2:10])
	}
	s.control = opcode&0x08 != 0
	if s.control {
		if length > wsControlMax {
			return &wsFrameError{websocket.StatusProtocolError, fmt.Sprintf("a control frame of %d bytes; at most %d", length, wsControlMax)}
		}
	} else {
		if opcode != 0 || !s.inMessage { // a text or binary frame begins a message
			s.msgBytes = 0
		}
		s.inMessage, s.fin = true, fin
		if length > s.limit-s.msgBytes { // s.msgBytes <= s.limit
			return &wsFrameError{websocket.StatusMessageTooBig, fmt.Sprintf("a message larger than %d bytes, the most this server reads", s.limit)}
		}
		s.msgBytes += length
	}
	s.left = length
	if length == 0 {
		s.endFrame()
	}
	return nil
}

// endFrame notes that the current frame's payload has arrived: a final
// data frame ends its message.
func (s *wsFrameScanner) endFrame() {
	if !s.control && s.fin {
		s.inMessage = false
	}
}

// wsGuardedConn is the connection under the websocket library: what it
// reads passes through the frame scanner, and while a frame or message
// is arriving the read deadline is its time limit.
type wsGuardedConn struct {
	net.Conn
	// pending are the bytes the HTTP server had read past the upgrade
	// request; they are read first.
	pending []byte
	scanner wsFrameScanner
	timeout time.Duration // a message's time to arrive whole
	armed   bool          // a read deadline is set: something is arriving
	tripped atomic.Pointer[wsFrameError]
}

// wsTooSlow is the trip of a message that did not arrive in time.
func wsTooSlow(timeout time.Duration) *wsFrameError {
	return &wsFrameError{websocket.StatusPolicyViolation, fmt.Sprintf("a message took longer than %s to arrive", timeout)}
}

// Read reads from the connection, through the scanner. Once a bound is
// broken every read fails, at once, with the trip.
func (c *wsGuardedConn) Read(p []byte) (int, error) {
	if e := c.tripped.Load(); e != nil {
		return 0, e
	}
	var (
		n   int
		err error
	)
	if len(c.pending) > 0 {
		n = copy(p, c.pending)
		c.pending = c.pending[n:]
	} else {
		n, err = c.Conn.Read(p)
	}
	if n > 0 {
		if e := c.scanner.scan(p[:n]); e != nil {
			return 0, c.trip(e)
		}
		c.arm()
	}
	if err != nil && c.armed && errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, c.trip(wsTooSlow(c.timeout))
	}
	return n, err
}

// trip records why the socket must close and returns it.
func (c *wsGuardedConn) trip(e *wsFrameError) error {
	c.tripped.CompareAndSwap(nil, e)
	return c.tripped.Load()
}

// arm sets the read deadline when a frame or message has begun arriving
// (anew when one began in the last read), and clears it when nothing is.
func (c *wsGuardedConn) arm() {
	switch busy := c.scanner.busy(); {
	case busy && (!c.armed || c.scanner.started > 0):
		_ = c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
		c.armed = true
	case !busy && c.armed:
		_ = c.Conn.SetReadDeadline(time.Time{})
		c.armed = false
	}
}

// tripError returns why the socket must close, nil while it need not.
func (c *wsGuardedConn) tripError() *wsFrameError { return c.tripped.Load() }

// wsGuardWriter is the ResponseWriter given to websocket.Accept: its
// Hijack hands the library a wsGuardedConn.
type wsGuardWriter struct {
	http.ResponseWriter
	limit   int64
	timeout time.Duration
	conn    *wsGuardedConn // set by Hijack
}

// Hijack implements http.Hijacker. The bytes the HTTP server had read
// past the upgrade request (a client may send its first frames without
// waiting for the answer) are taken from the reader it returns, which the
// library reads first, and read through the guard instead.
func (w *wsGuardWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	var pending []byte
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		pending = bytes.Clone(b)
		_, _ = brw.Reader.Discard(n)
	}
	w.conn = &wsGuardedConn{Conn: conn, pending: pending, timeout: w.timeout,
		scanner: wsFrameScanner{limit: uint64(w.limit)}}
	return w.conn, brw, nil
}

// Unwrap is for http.ResponseController.
func (w *wsGuardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
