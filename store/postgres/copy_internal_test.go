package postgres

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/internal/chunkrows"
)

// pgx can return from CopyFrom while its goroutine is still in Read (the
// connection failed, or the context ended mid-COPY). Closing the reader
// then must wait for that Read, not stop the rows' iterator under it (which
// crashed the process: "coroswitch on exited coro"), and later Reads must
// fail.
func TestCopyReaderCloseWaitsForRead(t *testing.T) {
	t.Parallel()
	chunks, err := solver.Chunks(12, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := chunks[0]
	inside, release := make(chan struct{}), make(chan struct{})
	blocking := func(yield func(solver.Placement) bool) {
		i := 0
		for p := range c.Solutions() {
			if i++; i == 100 {
				close(inside)
				<-release
			}
			if !yield(p) {
				return
			}
		}
	}
	r := newCopyReader(chunkrows.New(t.Context(), store.ChunkWrite{Chunk: c, Solutions: blocking}), c.N)

	readErr := make(chan error, 1)
	go func() { // as pgx does, with a small buffer so that the chunk takes many Reads
		buf := make([]byte, 256)
		for {
			if _, err := r.Read(buf); err != nil {
				readErr <- err
				return
			}
		}
	}()
	<-inside // a Read is in the middle of the rows' iterator
	closed := make(chan struct{})
	go func() {
		r.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while a Read was in the rows' iterator")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	<-closed
	// The goroutine stops at the end of the rows or at the first Read after
	// Close, whichever its Reads reach first.
	if err := <-readErr; !errors.Is(err, errCopyReaderClosed) && err != io.EOF {
		t.Fatalf("the reading goroutine stopped with %v", err)
	}
	if _, err := r.Read(make([]byte, 256)); !errors.Is(err, errCopyReaderClosed) {
		t.Fatalf("a Read after Close: %v, want %v", err, errCopyReaderClosed)
	}
}
