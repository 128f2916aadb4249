//go:build loopsteps

package solver

import "fmt"

// loopTally counts countFrom's and countMeet's steps (one per square
// tried), countFrom's two-row endings (one per square of a child finished
// without a node) and countMeet's lookups (one per node of the row above
// the meeting row asking the table),
// and checks at each step that the loop's masks change no index: d and
// the stack pointer stay below MaxSearchN, and d keeps two rows below it.
// `go test -tags loopsteps ./solver` builds it (.ci/run does).
type loopTally struct {
	steps, endings, lookups uint64
	err                     error
}

func (t *loopTally) step(d, sp int) {
	t.steps++
	if t.err == nil && (d < 3 || d >= MaxSearchN || sp < 1 || sp >= MaxSearchN) {
		t.err = fmt.Errorf("step %d: d=%d, stack pointer %d: a mask of MaxSearchN-1 would change an index", t.steps, d, sp)
	}
}

func (t *loopTally) ending() { t.endings++ }

func (t *loopTally) lookup() { t.lookups++ }
