package server

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsFrame encodes a frame as a client sends it: masked, with the shortest
// length encoding unless long forces the 64-bit one; payload is length
// bytes of 'x' when withPayload.
func wsFrame(fin bool, opcode byte, length uint64, withPayload, long bool) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	h := []byte{b0}
	switch {
	case long || length > 0xffff:
		h = append(h, 0x80|127)
		h = binary.BigEndian.AppendUint64(h, length)
	case length > 125:
		h = append(h, 0x80|126)
		h = binary.BigEndian.AppendUint16(h, uint16(length))
	default:
		h = append(h, 0x80|byte(length))
	}
	h = append(h, 0x12, 0x34, 0x56, 0x78) // the mask key; the scanner does not unmask
	if withPayload {
		h = append(h, bytes.Repeat([]byte{'x'}, int(length))...)
	}
	return h
}

const (
	opContinuation, opText, opBinary = 0x0, 0x1, 0x2
	opClose, opPing, opPong          = 0x8, 0x9, 0xa
)

// scanAll feeds stream to a scanner of limit in pieces of at most piece
// bytes (0: at random sizes) and returns the scanner and its error.
func scanAll(limit uint64, stream []byte, piece int) (*wsFrameScanner, *wsFrameError) {
	s := &wsFrameScanner{limit: limit}
	r := rand.New(rand.NewPCG(1, 2))
	for len(stream) > 0 {
		k := piece
		if k == 0 {
			k = 1 + r.IntN(300)
		}
		k = min(k, len(stream))
		if err := s.scan(stream[:k]); err != nil {
			return s, err
		}
		stream = stream[k:]
	}
	return s, nil
}

// TestFrameScanner: the lengths of 7, 16 and 64 bits are read, masked
// headers skipped, fragments of one message added up (control frames
// between them not), and a header that takes its message past the limit
// refused with 1009 before any of its payload; fed whole, byte by byte or
// in random pieces, the scanner says the same.
func TestFrameScanner(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	cat := func(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
	tests := []struct {
		name   string
		stream []byte
		code   websocket.StatusCode // 0: no trip
		busy   bool                 // after the stream, when no trip
	}{
		{"empty text message", wsFrame(true, opText, 0, true, false), 0, false},
		{"7-bit length", wsFrame(true, opText, 125, true, false), 0, false},
		{"16-bit length", wsFrame(true, opText, 126, true, false), 0, false},
		{"16-bit length at the limit", wsFrame(true, opBinary, limit-1, true, false), 0, false},
		{"64-bit length at the limit", wsFrame(true, opText, limit, true, true), 0, false},
		{"64-bit length past the limit", wsFrame(true, opText, limit+1, false, false), websocket.StatusMessageTooBig, false},
		{"2^40 bytes announced", wsFrame(true, opText, 1<<40, false, false), websocket.StatusMessageTooBig, false},
		{"2^63 bytes announced", wsFrame(true, opText, 1<<63, false, false), websocket.StatusMessageTooBig, false},
		{"all ones announced", wsFrame(true, opText, ^uint64(0), false, false), websocket.StatusMessageTooBig, false},
		{"a header cut short", wsFrame(true, opText, 1<<40, false, false)[:5], 0, true},
		{"a payload cut short", wsFrame(true, opText, 100, true, false)[:50], 0, true},
		{"fragments within the limit", cat(
			wsFrame(false, opText, 30000, true, false),
			wsFrame(false, opContinuation, 30000, true, false),
			wsFrame(true, opContinuation, limit-60000, true, false)), 0, false},
		{"fragments past the limit", cat(
			wsFrame(false, opText, 40000, true, false),
			wsFrame(true, opContinuation, 40000, false, false)), websocket.StatusMessageTooBig, false},
		{"control frames between fragments are not counted", cat(
			wsFrame(false, opText, 40000, true, false),
			wsFrame(true, opPing, 125, true, false),
			wsFrame(true, opPong, 0, true, false),
			wsFrame(true, opContinuation, limit-40000, true, false)), 0, false},
		{"a ping does not end a message", cat(
			wsFrame(false, opText, 10, true, false),
			wsFrame(true, opPing, 4, true, false)), 0, true},
		{"the next message counts from zero", cat(
			wsFrame(true, opText, 40000, true, false),
			wsFrame(true, opBinary, 40000, true, false),
			wsFrame(false, opText, 40000, true, false),
			wsFrame(true, opContinuation, 20000, true, false)), 0, false},
		{"a fragment not final", wsFrame(false, opText, 10, true, false), 0, true},
		{"a control frame past 125 bytes", wsFrame(true, opPing, 126, false, false), websocket.StatusProtocolError, false},
		{"a close frame", wsFrame(true, opClose, 2, true, false), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, piece := range []int{len(tt.stream), 1, 0} {
				s, err := scanAll(limit, tt.stream, piece)
				switch {
				case tt.code != 0 && (err == nil || err.code != tt.code):
					t.Fatalf("pieces of %d: error %v, want close code %d", piece, err, tt.code)
				case tt.code == 0 && err != nil:
					t.Fatalf("pieces of %d: %v", piece, err)
				case tt.code == 0 && s.busy() != tt.busy:
					t.Fatalf("pieces of %d: busy %t after the stream, want %t", piece, s.busy(), tt.busy)
				}
			}
		})
	}
}

// TestFrameScannerStarts: started counts the frames that begin while
// nothing arrives, in the last scan only.
func TestFrameScannerStarts(t *testing.T) {
	t.Parallel()
	s := &wsFrameScanner{limit: 1 << 20}
	two := append(wsFrame(true, opText, 3, true, false), wsFrame(false, opText, 3, true, false)...)
	if err := s.scan(two); err != nil || s.started != 2 || !s.busy() {
		t.Fatalf("two messages, the second unfinished: started %d, busy %t, %v; want 2, busy", s.started, s.busy(), err)
	}
	if err := s.scan(append(wsFrame(true, opPing, 0, true, false), wsFrame(true, opContinuation, 2, true, false)...)); err != nil || s.started != 0 || s.busy() {
		t.Fatalf("a ping and the end of the message: started %d, busy %t, %v; want 0, not busy", s.started, s.busy(), err)
	}
}

// TestGuardedConn: over a pipe, the guarded connection reads what the
// HTTP server had buffered first; a message that stops arriving fails
// the read after the message timeout with 1008, and every read after;
// silence between messages is not timed.
func TestGuardedConn(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	server, client := net.Pipe()
	defer client.Close()
	first := wsFrame(true, opText, 5, true, false)
	c := &wsGuardedConn{Conn: server, pending: first[:4], timeout: timeout, scanner: wsFrameScanner{limit: 1024}}
	defer c.Close()
	go func() {
		_, _ = client.Write(first[4:])
		time.Sleep(3 * timeout) // silence between messages
		_, _ = client.Write(wsFrame(true, opText, 100, true, false)[:20])
	}()
	buf := make([]byte, 512)
	var got []byte
	for len(got) < len(first) {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("reading the first message: %v", err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, first) {
		t.Fatalf("read %x, want %x", got, first)
	}
	// The second message's first 20 bytes come after the silence, the
	// rest never.
	start := time.Now()
	var err error
	for err == nil {
		_, err = c.Read(buf)
	}
	waited := time.Since(start)
	var trip *wsFrameError
	if !errors.As(err, &trip) || trip.code != websocket.StatusPolicyViolation {
		t.Fatalf("a message cut short: %v; want the 1008 trip", err)
	}
	if waited < 3*timeout+timeout/2 {
		t.Errorf("tripped after %s: the silence between messages (%s) was timed", waited, 3*timeout)
	}
	if _, err := c.Read(buf); !errors.Is(err, trip) || c.tripError() != trip {
		t.Errorf("a read after the trip: %v", err)
	}
}

// TestGuardedConnTooBig: a header past the limit fails the read it
// arrives in, before any byte of it reaches the library.
func TestGuardedConnTooBig(t *testing.T) {
	t.Parallel()
	server, client := net.Pipe()
	defer client.Close()
	c := &wsGuardedConn{Conn: server, timeout: time.Minute, scanner: wsFrameScanner{limit: 1024}}
	defer c.Close()
	go func() { _, _ = client.Write(wsFrame(true, opBinary, 1<<40, false, false)) }()
	n, err := io.ReadFull(c, make([]byte, 14))
	var trip *wsFrameError
	if !errors.As(err, &trip) || trip.code != websocket.StatusMessageTooBig || n != 0 {
		t.Fatalf("a 2^40-byte frame: %d bytes, %v; want none and the 1009 trip", n, err)
	}
}
