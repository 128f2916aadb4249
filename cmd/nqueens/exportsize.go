package main

import (
	"bytes"
	"context"
	"io"

	"github.com/nqueens/nqueens/export"
	"github.com/nqueens/nqueens/internal/memlimit"
	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/solver"
)

// exportCountMaxN is the largest board export counts with the solver
// before writing it (N=17: a few seconds on two cores, against minutes of
// writing); past it, and under a filter, the size is not said up front.
const exportCountMaxN = 17

// exportCount is how many solutions e will write, when that is known before
// writing: the store's count of the board it holds done, or the solver's
// count of boards up to exportCountMaxN.
func exportCount(ctx context.Context, st export.Store, e *export.Export) (uint64, bool, error) {
	if !e.Filter.IsZero() {
		return 0, false, nil
	}
	var counts solver.Counts
	switch {
	case e.Source == export.FromStore:
		b, err := st.Board(ctx, e.N)
		if err != nil || b.Counts == nil {
			return 0, false, err
		}
		counts = *b.Counts
	case e.N <= exportCountMaxN:
		var err error
		if counts, err = solver.Count(ctx, e.N, solver.CountOptions{}); err != nil {
			return 0, false, err
		}
	default:
		return 0, false, nil
	}
	if e.Unique {
		return counts.Unique, true, nil
	}
	return counts.Total, true, nil
}

// lineCounter passes an export's bytes on and tells a progress bar how many
// solutions have gone (the lines, less the CSV header's).
type lineCounter struct {
	w            io.Writer
	bar          *progress.Count
	lines, total uint64
	header       uint64 // 1 for CSV
}

func (l *lineCounter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	l.lines += uint64(bytes.Count(p[:n], []byte{'\n'}))
	l.bar.Update(int(l.lines-min(l.header, l.lines)), int(l.total))
	return n, err
}

// byteSize writes a size for people: exact, and in the largest unit
// ("3161898433 bytes (2.9GiB)").
func byteSize(n uint64) string {
	s := progress.Plural(n, "byte")
	if n >= 1<<10 {
		s += " (" + memlimit.Approx(int64(n)) + ")"
	}
	return s
}
