package progress

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestCountProgressDraw draws the bar at chosen times: nothing in the
// first second, then the tasks done, the time and the time left, on one
// line redrawn in place, erased at the end.
func TestCountProgressDraw(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &Count{out: &out, start: t0, label: "counting", noun: "task"}
	p.draw(t0.Add(500 * time.Millisecond))
	p.clear()
	if out.Len() != 0 {
		t.Fatalf("within the first second: %q; want nothing", out.String())
	}
	p.draw(t0.Add(1200 * time.Millisecond))
	if got, want := out.String(), "\r\x1b[K[..............................] counting: 0 tasks done, 1.2s, ETA ?"; got != want {
		t.Errorf("before a task is done: %q, want %q", got, want)
	}
	out.Reset()
	p.Update(25, 100)
	p.draw(t0.Add(2 * time.Second))
	if got, want := out.String(), "\r\x1b[K[########......................] counting: 25/100 tasks, 2s, ETA 6s"; got != want {
		t.Errorf("a quarter done: %q, want %q", got, want)
	}
	out.Reset()
	p.Update(1, 1)
	p.draw(t0.Add(3 * time.Second))
	p.clear()
	if got, want := out.String(), "\r\x1b[K[##############################] counting: 1/1 task, 3s, ETA 0s\r\x1b[K"; got != want {
		t.Errorf("done, then erased: %q, want %q", got, want)
	}
}

// TestCountProgressOnlyOnTerminal: a pipe (or a file) gets no progress.
func TestCountProgressOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if p := NewCount(w, time.Now()); p != nil {
		t.Error("progress drawn on a pipe")
	}
}
