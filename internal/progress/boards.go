// Package progress shows long work getting on: the boards of `nqueens
// precompute --wait` (a bar on a terminal, plain lines that logs keep
// otherwise) and the bar of `nqueens count` on a terminal; and writes the
// counted things of their messages ("1 chunk", "3/11 boards").
package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/nqueens/nqueens/store"
)

// progressView shows `nqueens precompute --wait` getting on: on a
// terminal, a bar redrawn five times a second (chunks, solutions per
// second, ETA); otherwise, plain lines that logs keep: one every few
// seconds, and one per board as it finishes.
type progressView struct {
	out io.Writer
	tty bool

	began      time.Time
	solutions0 uint64                   // solutions written when we began
	chunks0    int                      // chunks written when we began
	states     map[int]store.BoardState // last state shown, per board
	staleFail  map[int]bool             // boards failed before we began, asked for again
	lastLine   time.Time                // when the last plain progress line was written
}

// plainEvery is how often a plain progress line is written.
const plainEvery = 5 * time.Second

func newProgressView(out io.Writer) *progressView {
	f, ok := out.(*os.File)
	return &progressView{out: out, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (v *progressView) interval() time.Duration {
	if v.tty {
		return 200 * time.Millisecond
	}
	return 250 * time.Millisecond
}

// start records the boards as they were asked for and prints them.
func (v *progressView) start(boards []store.Board) {
	v.began, v.lastLine = time.Now(), time.Now()
	v.states, v.staleFail = map[int]store.BoardState{}, map[int]bool{}
	for _, b := range boards {
		v.solutions0 += b.SolutionsDone
		v.chunks0 += b.ChunksDone
		v.states[b.N] = b.State
		if b.State == store.Failed {
			v.staleFail[b.N] = true
		}
		v.println(AskedFor(b, true))
	}
}

// update shows the boards' rows as read now. finished is true when every
// board is done or failed; failed describes the failed ones.
func (v *progressView) update(boards []store.Board) (finished bool, failed []string) {
	var chunksDone, chunksTotal, done, planned int
	var solutions uint64
	finished = len(boards) == len(v.states)
	for _, b := range boards {
		if b.State != store.Failed {
			delete(v.staleFail, b.N)
		}
		stale := v.staleFail[b.N]
		if b.State != v.states[b.N] && (b.State == store.Done || b.State == store.Failed && !stale) {
			v.println(describeFinished(b))
		}
		v.states[b.N] = b.State
		solutions += b.SolutionsDone
		chunksDone += b.ChunksDone
		chunksTotal += b.ChunksTotal
		if b.State != store.Pending && !stale {
			planned++
		}
		switch {
		case b.State == store.Done:
			done++
		case b.State == store.Failed && !stale:
			failed = append(failed, fmt.Sprintf("N=%d: %s", b.N, b.LastError))
		default:
			finished = false
		}
	}
	elapsed := time.Since(v.began)
	rate := 0.0
	if solutions >= v.solutions0 && elapsed > 0 {
		rate = float64(solutions-v.solutions0) / elapsed.Seconds()
	}
	// The ETA assumes the chunks left go as fast as those done so far.
	// Chunks of larger boards are larger, and come last: it errs short.
	eta := "?"
	if since := chunksDone - v.chunks0; planned == len(v.states) && since > 0 {
		eta = time.Duration(float64(elapsed) * float64(chunksTotal-chunksDone) / float64(since)).Round(time.Second).String()
	}
	boardsDone := Fraction(done, len(v.states), "board") + " done"
	line := fmt.Sprintf("%s, %s, %.0f solutions/s, ETA %s", boardsDone, Fraction(chunksDone, chunksTotal, "chunk"), rate, eta)
	// What this run computed: the chunks of boards done before it began
	// are not its own.
	computed := Plural(max(0, chunksDone-v.chunks0), "chunk") + " computed"
	switch {
	case v.tty && finished:
		fmt.Fprintf(v.out, "\r\x1b[K%s %s, %s in %s\n", bar(1, 30), boardsDone, computed, elapsed.Round(100*time.Millisecond))
	case v.tty:
		part := 0.0
		if chunksTotal > 0 {
			part = float64(chunksDone) / float64(chunksTotal)
		}
		fmt.Fprintf(v.out, "\r\x1b[K%s %s", bar(part, 30), line)
	case finished:
		fmt.Fprintf(v.out, "finished: %s, %s in %s\n", boardsDone, computed, elapsed.Round(100*time.Millisecond))
	case time.Since(v.lastLine) >= plainEvery:
		v.lastLine = time.Now()
		fmt.Fprintf(v.out, "progress: %s, %s elapsed\n", line, elapsed.Round(100*time.Millisecond))
	}
	return finished, failed
}

// interrupted ends the bar's line so that the shell's prompt starts clean.
func (v *progressView) interrupted() {
	if v.tty {
		fmt.Fprintln(v.out)
	}
}

// println writes a line of its own, above the bar on a terminal.
func (v *progressView) println(s string) {
	if v.tty {
		fmt.Fprintf(v.out, "\r\x1b[K%s\n", s)
		return
	}
	fmt.Fprintln(v.out, s)
}

func describeFinished(b store.Board) string {
	if b.State == store.Failed {
		return fmt.Sprintf("N=%d failed: %s", b.N, b.LastError)
	}
	return fmt.Sprintf("N=%d done: %s, %d unique, %s in %.1f s (%s)",
		b.N, Plural(b.Counts.Total, "solution"), b.Counts.Unique, Plural(b.ChunksTotal, "chunk"), b.Duration.Seconds(), keeps(b))
}

// bar draws fraction (0 to 1) as a bar of width cells.
func bar(fraction float64, width int) string {
	full := min(width, max(0, int(fraction*float64(width)+0.5)))
	return "[" + strings.Repeat("#", full) + strings.Repeat(".", width-full) + "]"
}

// Watch shows on out the progress of boards ns, first as they were asked
// for, until they are all done (nil) or one has failed and the others are
// done.
func Watch(ctx context.Context, st store.Reader, ns []int, first []store.Board, out io.Writer) error {
	view := newProgressView(out)
	view.start(first)
	tick := time.NewTicker(view.interval())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			view.interrupted()
			return ctx.Err()
		case <-tick.C:
		}
		all, err := st.Boards(ctx)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return err
		}
		var boards []store.Board
		for _, b := range all {
			if slices.Contains(ns, b.N) {
				boards = append(boards, b)
			}
		}
		if finished, failed := view.update(boards); finished {
			if len(failed) > 0 {
				return fmt.Errorf("%d of %s failed: %s", len(failed), Plural(len(ns), "board"), strings.Join(failed, "; "))
			}
			return nil
		}
	}
}

// AskedFor says, in one line, where a board stood when it was asked for:
// done or running already, or now asked for. working says that this
// process works the jobs (--wait).
func AskedFor(b store.Board, working bool) string {
	switch b.State {
	case store.Done:
		return fmt.Sprintf("N=%d already done: %s, %d unique (%s)", b.N, Plural(b.Counts.Total, "solution"), b.Counts.Unique, keeps(b))
	case store.Running:
		return fmt.Sprintf("N=%d already running: %d of %s done", b.N, b.ChunksDone, Plural(b.ChunksTotal, "chunk"))
	case store.Failed:
		return fmt.Sprintf("N=%d failed: %s; asked for again", b.N, b.LastError)
	}
	if working {
		return fmt.Sprintf("N=%d asked for: computing it", b.N)
	}
	return fmt.Sprintf("N=%d asked for: its job waits for a worker (nqueens worker, nqueens serve)", b.N)
}

func keeps(b store.Board) string {
	if b.StoresSolutions {
		return "solutions stored"
	}
	return "counts only"
}
