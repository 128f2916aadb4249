package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
)

const (
	precomputeSynopsis = "RANGE [--wait] [--workers K] [--store-max-n N] [--job-timeout D] [--rescue-after D] [--shutdown-timeout D] …"
	envWait            = "NQUEENS_PRECOMPUTE_WAIT"
)

// runPrecompute asks for the boards of RANGE (e.g. 1-16, or 8,10,12-14):
// each gets a board job, unless it is running or done already. Without
// --wait it prints each board's state and exits, leaving the work to the
// workers (nqueens worker, nqueens serve). With --wait it works the jobs
// itself as well, so that it finishes with no other worker running (on
// the embedded SQLite file, say), shows the progress until every board is
// done (a bar on a terminal, a line every few seconds otherwise), and
// exits 1 if a board failed.
func runPrecompute(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlagSet("precompute")
	s := addWorkerFlags(fs, false)
	dbFlags := addDatabaseFlags(fs)
	// Warnings and errors only by default: the progress is on stdout.
	logFlags := addLogFlags(fs, slog.LevelWarn)
	wait := fs.Bool("wait", false, "work the jobs here too and show the progress until the boards are done ($"+envWait+")")
	if err := setFromEnv(fs); err != nil {
		return err
	}
	pos, err := parseArgs(fs, precomputeSynopsis+"\n\nRANGE lists board sizes from 1 to "+strconv.Itoa(precompute.MaxN)+
		": 1-16, 8,10,12-14. Boards up to the storage limit keep every solution,\nthose above it their counts only.\nThe database: "+databaseEnvUsage+".", args, stdout)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing RANGE, the boards to compute (e.g. 1-16 or 8,10,12-14)")
	}
	ns, err := parseBoards(strings.Join(pos, ","))
	if err != nil {
		return usagef("%v", err)
	}
	if len(ns) == 0 {
		return usagef("RANGE names no board")
	}
	if err := s.check(); err != nil {
		return err
	}

	logger := logFlags.logger(os.Stderr)
	st, j, err := s.open(ctx, dbFlags.database(), true, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	if *wait {
		if err := j.Start(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		defer func() {
			if err := s.stop(j); err != nil {
				logger.Error(err.Error())
			}
		}()
	}
	boards := make([]store.Board, len(ns))
	for i, n := range ns {
		if boards[i], err = j.Precompute(ctx, n, nil); err != nil {
			return fmt.Errorf("asking for board %d: %w", n, err)
		}
	}
	if !*wait {
		for _, b := range boards {
			fmt.Fprintln(stdout, describeBoard(b, false))
		}
		return nil
	}
	return watch(ctx, st, ns, boards, newProgressView(stdout))
}

// parseBoards reads a list of board sizes and ranges, "1-16" or
// "8,10,12-14", into sorted distinct sizes from 1 to precompute.MaxN; ""
// and "none" are the empty list.
func parseBoards(list string) ([]int, error) {
	if list == "" || list == "none" {
		return nil, nil
	}
	var out []int
	for part := range strings.SplitSeq(list, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		first, err1 := strconv.Atoi(strings.TrimSpace(lo))
		last, err2 := first, error(nil)
		if isRange {
			last, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("%q is not a board size or a range of them (e.g. 12 or 1-16)", part)
		case first < 1 || last > precompute.MaxN || first > last:
			return nil, fmt.Errorf("%q: board sizes go from 1 to %d, in increasing order", part, precompute.MaxN)
		}
		for n := first; n <= last; n++ {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// describeBoard says, in one line, where a board stood when it was asked
// for: done or running already, or now asked for. working says that this
// process works the jobs (--wait).
func describeBoard(b store.Board, working bool) string {
	switch b.State {
	case store.Done:
		return fmt.Sprintf("N=%d already done: %s, %d unique (%s)", b.N, plural(b.Counts.Total, "solution"), b.Counts.Unique, keeps(b))
	case store.Running:
		return fmt.Sprintf("N=%d already running: %d of %s done", b.N, b.ChunksDone, plural(b.ChunksTotal, "chunk"))
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

// watch shows the progress of boards ns until they are all done (nil) or
// one has failed and the others are done.
func watch(ctx context.Context, st store.Store, ns []int, first []store.Board, view *progressView) error {
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
				return fmt.Errorf("%d of %s failed: %s", len(failed), plural(len(ns), "board"), strings.Join(failed, "; "))
			}
			return nil
		}
	}
}
