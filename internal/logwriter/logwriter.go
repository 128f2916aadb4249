// Package logwriter hands log lines to a goroutine that writes them on,
// so that a busy server makes one write for many lines. The request log
// is a line a request; written one by one to stderr, each was a system
// call in the request's path (3% of a page request's CPU under load).
//
// Nothing waits for a timer: the goroutine writes as soon as there is
// something to write, so an idle server's lines go out at once and a busy
// one's are gathered while the previous write is under way. A writer that
// falls behind (a stderr nobody reads) makes Write wait once maxPending
// bytes are pending, as a direct write would, instead of growing memory.
package logwriter

import (
	"io"
	"sync"
)

// maxPending bounds the bytes waiting to be written.
const maxPending = 256 << 10

// Writer is an io.Writer that writes to out from its own goroutine; Close
// writes what is pending and stops it. Writes after Close go to out
// directly.
type Writer struct {
	out  io.Writer
	wake chan struct{} // a Write or Close has something for run
	done chan struct{} // run has returned

	mu      sync.Mutex
	room    sync.Cond // broadcast when run takes pending
	pending []byte
	closed  bool
}

// New starts a Writer to out.
func New(out io.Writer) *Writer {
	w := &Writer{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.room.L = &w.mu
	go w.run()
	return w
}

// Write queues p (a log line: slog writes each record with one call, so
// lines are never split) and returns; its error is never out's.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	for !w.closed && len(w.pending) > 0 && len(w.pending)+len(p) > maxPending {
		w.room.Wait()
	}
	if w.closed {
		w.mu.Unlock()
		<-w.done // after what was pending
		return w.out.Write(p)
	}
	w.pending = append(w.pending, p...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default: // run is already told
	}
	return len(p), nil
}

func (w *Writer) run() {
	defer close(w.done)
	var spare []byte
	for range w.wake {
		w.mu.Lock()
		buf, closed := w.pending, w.closed
		w.pending = spare[:0]
		w.room.Broadcast()
		w.mu.Unlock()
		if len(buf) > 0 {
			_, _ = w.out.Write(buf) // as slog does, a failed log write is dropped
		}
		if closed {
			return
		}
		spare = buf
	}
}

// Close writes what is pending and stops the goroutine.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.room.Broadcast()
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	<-w.done
	return nil
}
