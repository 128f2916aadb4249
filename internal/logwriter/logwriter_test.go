package logwriter_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/logwriter"
)

// lockedBuffer is out for the tests: it counts the writes it gets.
type lockedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	gate   chan struct{} // when not nil, each write waits for it to close
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	if b.gate != nil {
		<-b.gate
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestEveryLineWrittenWholeAndInOrder(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	w := logwriter.New(&out)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "writer=%d line=%d\n", g, i)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines written, want %d", len(got), writers*lines)
	}
	for _, line := range got {
		var g, i int
		if _, err := fmt.Sscanf(line, "writer=%d line=%d", &g, &i); err != nil || g < 0 || g >= writers {
			t.Fatalf("line %q is not one that was written", line)
		}
		if i != next[g] {
			t.Fatalf("writer %d: line %d came after line %d", g, i, next[g]-1)
		}
		next[g]++
	}
	if out.writes >= writers*lines {
		t.Errorf("%d writes for %d lines: none were gathered", out.writes, writers*lines)
	}
}

func TestLinesGoOutWithoutClose(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	w := logwriter.New(&out)
	defer w.Close()
	fmt.Fprintln(w, "a lone line")
	deadline := time.Now().Add(10 * time.Second)
	for out.String() != "a lone line\n" {
		if time.Now().After(deadline) {
			t.Fatalf("the line was not written: out holds %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWriteWaitsForAStuckOutput(t *testing.T) {
	t.Parallel()
	out := lockedBuffer{gate: make(chan struct{})}
	w := logwriter.New(&out)
	line := bytes.Repeat([]byte("x"), 1023)
	line = append(line, '\n')
	queued := make(chan int, 1)
	go func() {
		n := 0
		for range 1024 { // 1 MiB against a bound of 256 KiB pending
			w.Write(line)
			n++
		}
		queued <- n
	}()
	// With out stuck, the writer cannot have queued the whole MiB.
	select {
	case n := <-queued:
		t.Fatalf("%d lines of 1 KiB queued with the output stuck", n)
	case <-time.After(200 * time.Millisecond):
	}
	close(out.gate)
	<-queued
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(out.String()); got != 1<<20 {
		t.Fatalf("%d bytes written, want %d", got, 1<<20)
	}
	fmt.Fprintln(w, "after close")
	if !strings.HasSuffix(out.String(), "after close\n") {
		t.Fatal("a line written after Close was lost")
	}
}
