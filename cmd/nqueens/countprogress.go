package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// countProgress shows `nqueens count` getting on, on stderr when it is a
// terminal: from the first second on (a quick count shows nothing), a bar
// with the tasks done, the time spent and an estimate of the time left,
// redrawn five times a second and erased when the count ends, so that the
// result on stdout stands alone.
type countProgress struct {
	out         io.Writer
	start       time.Time
	done, total atomic.Int64
	shown       bool // a bar is on the line, to erase at the end
}

const (
	countProgressDelay = time.Second
	countProgressEvery = 200 * time.Millisecond
)

// newCountProgress returns the progress of a count started now, drawn on
// f, or nil when f is not a terminal: logs and pipes get the result only.
func newCountProgress(f *os.File, now time.Time) *countProgress {
	if f == nil || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &countProgress{out: f, start: now}
}

// update records the solver's progress (solver.CountOptions.Progress).
func (p *countProgress) update(done, total int) {
	p.done.Store(int64(done))
	p.total.Store(int64(total))
}

// draw redraws the bar as of now, once the count has run long enough.
func (p *countProgress) draw(now time.Time) {
	elapsed := now.Sub(p.start)
	if elapsed < countProgressDelay {
		return
	}
	done, total := p.done.Load(), p.total.Load()
	part := 0.0
	eta := "?"
	if total > 0 && done > 0 {
		part = float64(done) / float64(total)
		eta = time.Duration(float64(elapsed) * float64(total-done) / float64(done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.out, "\r\x1b[K%s counting: %s, %s, ETA %s", bar(part, 30), fractionOf(done, total, "task"),
		elapsed.Round(100*time.Millisecond), eta)
	p.shown = true
}

// fractionOf is fraction for the task counts: the total is known (not 0)
// once the first task is done.
func fractionOf(done, total int64, noun string) string {
	if total == 0 {
		return plural(done, noun) + " done"
	}
	return fraction(done, total, noun)
}

// clear erases the bar, if one was drawn.
func (p *countProgress) clear() {
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
		p.shown = false
	}
}

// run redraws the bar every countProgressEvery until the returned stop
// is called; stop erases it.
func (p *countProgress) run() (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(countProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				p.clear()
				return
			case now := <-tick.C:
				p.draw(now)
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
	}
}
