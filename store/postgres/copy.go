package postgres

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"

	"github.com/nqueens/nqueens/store/internal/chunkrows"
)

// copySolutions is the COPY statement copyReader's stream is for.
const copySolutions = `COPY solutions (n, orbit_size, canonical, placement) FROM STDIN (FORMAT binary)`

// copyReader streams a chunk's rows in Postgres's binary COPY format.
// Encoding the four columns by hand, rather than through pgx's CopyFrom
// and its per-value type dispatch, takes a few nanoseconds a row: on a
// two-core machine the client's CPU is the server's too, and bulk loads
// went from half to about the speed of a raw COPY (docs/PERFORMANCE.md).
//
// pgx reads it from a goroutine of its own, and when the connection fails
// or the context ends mid-COPY, CopyFrom can return while that goroutine
// is still in Read. Close waits for such a Read and makes later ones fail,
// so the rows, whose iterator must not be used by two goroutines at once,
// are never read and closed together.
type copyReader struct {
	mu     sync.Mutex
	closed bool
	rows   *chunkrows.Rows
	n      uint16
	buf    []byte // encoded, not yet read: buf[off:]
	off    int
	end    bool // the trailer is in buf
}

func newCopyReader(rows *chunkrows.Rows, n int) *copyReader {
	r := &copyReader{rows: rows, n: uint16(n), buf: make([]byte, 0, 1<<16)}
	// Signature, flags (none), header extension length (0).
	r.buf = append(r.buf, "PGCOPY\n\xff\r\n\x00"...)
	r.buf = binary.BigEndian.AppendUint32(r.buf, 0)
	r.buf = binary.BigEndian.AppendUint32(r.buf, 0)
	return r
}

// Read fills p with whole rows as far as they go, then the rest of a row.
// A bad row or a cancelled context ends the stream with the rows' error,
// which makes pgx abort the COPY.
func (r *copyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errCopyReaderClosed
	}
	if r.off > 0 {
		r.buf = r.buf[:copy(r.buf, r.buf[r.off:])]
		r.off = 0
	}
	for len(r.buf) < len(p) && !r.end {
		if !r.rows.Next() {
			if err := r.rows.Err(); err != nil {
				return 0, err
			}
			r.buf = binary.BigEndian.AppendUint16(r.buf, 0xFFFF) // trailer: field count -1
			r.end = true
			break
		}
		r.appendRow(r.rows.Row())
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.off = n
	return n, nil
}

// errCopyReaderClosed is what a Read after Close returns: the COPY is
// over for the writer, whatever pgx's goroutine still asks for.
var errCopyReaderClosed = errors.New("store/postgres: the COPY's rows are closed")

// Close closes the rows, after a Read in progress, if any. After it the
// rows' Err and Counts can be read.
func (r *copyReader) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		r.rows.Close()
	}
}

// appendRow encodes one row: the field count, then each field's length
// and value in network byte order (smallint, smallint, boolean, bytea).
func (r *copyReader) appendRow(row chunkrows.Row) {
	b := binary.BigEndian.AppendUint16(r.buf, 4)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint16(b, r.n)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint16(b, uint16(row.OrbitSize))
	b = binary.BigEndian.AppendUint32(b, 1)
	if row.Canonical {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(row.Key)))
	r.buf = append(b, row.Key...)
}
