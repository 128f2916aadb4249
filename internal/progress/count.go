package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// Count shows `nqueens count` getting on, on stderr when it is a
// terminal: from the first second on (a quick count shows nothing), a bar
// with the tasks done, the time spent and an estimate of the time left,
// redrawn five times a second and erased when the count ends, so that the
// result on stdout stands alone.
type Count struct {
	out         io.Writer
	label, noun string // "counting", "task"
	start       time.Time
	done, total atomic.Int64
	shown       bool // a bar is on the line, to erase at the end
}

const (
	countProgressDelay = time.Second
	countProgressEvery = 200 * time.Millisecond
)

// NewCount returns the progress of a count started now, drawn on w, or
// nil when w is not a terminal: logs and pipes get the result only.
func NewCount(w io.Writer, now time.Time) *Count {
	return NewCountOf(w, now, "counting", "task")
}

// NewCountOf is NewCount for other work: the bar says label ("exporting")
// and counts nouns ("solution").
func NewCountOf(w io.Writer, now time.Time, label, noun string) *Count {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &Count{out: w, start: now, label: label, noun: noun}
}

// Update records the solver's progress (solver.CountOptions.Progress).
func (p *Count) Update(done, total int) {
	p.done.Store(int64(done))
	p.total.Store(int64(total))
}

// draw redraws the bar as of now, once the count has run long enough.
func (p *Count) draw(now time.Time) {
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
	fmt.Fprintf(p.out, "\r\x1b[K%s %s: %s, %s, ETA %s", bar(part, 30), p.label, fractionOf(done, total, p.noun),
		elapsed.Round(100*time.Millisecond), eta)
	p.shown = true
}

// fractionOf is fraction for the task counts: the total is known (not 0)
// once the first task is done.
func fractionOf(done, total int64, noun string) string {
	if total == 0 {
		return Plural(done, noun) + " done"
	}
	return Fraction(done, total, noun)
}

// clear erases the bar, if one was drawn.
func (p *Count) clear() {
	if p.shown {
		fmt.Fprint(p.out, "\r\x1b[K")
		p.shown = false
	}
}

// Run redraws the bar every countProgressEvery until the returned stop
// is called; stop erases it.
func (p *Count) Run() (stop func()) {
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
