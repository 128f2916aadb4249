package service

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/precompute"
	"github.com/nqueens/nqueens/store"
)

// Open opens database db and the precompute engine over it, not started
// (`nqueens precompute`). When migrate, it applies the store's and River's
// migrations first; else the schema must be at the version this binary
// expects already.
func Open(ctx context.Context, db Database, migrate bool, cfg precompute.Config) (st store.ReadCloser, j *Jobs, err error) {
	if st, err = db.openStore(ctx, !migrate, nil, cfg.TracerProvider); err != nil {
		return nil, nil, fmt.Errorf("opening the database (%s): %w", db, err)
	}
	if j, err = openJobs(ctx, st, migrate, cfg); err == nil && !migrate {
		if err = checkSchema(ctx, st, db.Dialect(), j.schema); err != nil {
			err = fmt.Errorf("--migrate=false: %w", err)
		}
	}
	if err != nil {
		err = outageOr(ctx, st, err) // startup.go: retried like the opening
		st.Close()
		return nil, nil, err
	}
	return st, j, nil
}

// ParseBoards reads a list of board sizes and ranges, "1-16" or
// "8,10,12-14", into sorted distinct sizes from 1 to precompute.MaxN; ""
// and "none" are the empty list.
func ParseBoards(list string) ([]int, error) {
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

// Shutdown stops the workers: the engine cancels the chunks still running
// after its StopTimeout, and a little more lets their rollbacks and
// River's bookkeeping finish.
func (j *Jobs) Shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), j.stopTimeout+10*time.Second)
	defer cancel()
	if err := j.Stop(ctx); err != nil {
		return fmt.Errorf("stopping the workers: %w", err)
	}
	return nil
}

// serveWorkers are serve's workers: the engine, started, and the River UI.
type serveWorkers struct {
	jobs    *Jobs        // nil when the workers are off
	apiOnly bool         // off by the settings: the process only reads (apionly.go)
	schema  *riverSchema // River's tables, which /readyz checks even then
	logger  *slog.Logger
	cancel  context.CancelFunc // ends the River UI's background work
}

// startWorkers starts the workers of serve over st (applying River's
// migrations when migrate, as serve applies the store's), then asks for
// the boards of list (ParseBoards) in the background (the done ones are
// skipped). Told not to
// migrate, over a database without River's tables (or with older ones),
// it leaves the workers off: the precompute mutation then answers
// UNAVAILABLE. Stop them with Stop, after the HTTP server has shut down.
func startWorkers(ctx context.Context, st store.ReadCloser, cfg precompute.Config, list string, migrate bool, logger *slog.Logger) (*serveWorkers, error) {
	j, err := openJobs(ctx, st, migrate, cfg)
	if err != nil {
		return nil, err
	}
	w := &serveWorkers{logger: logger, schema: j.schema}
	if !migrate {
		if ok, err := j.schemaUpToDate(ctx); err != nil || !ok {
			logger.Warn("River's tables are missing or out of date; the precompute workers are off until `nqueens migrate up`", "err", err)
			return w, nil
		}
	}
	if err := j.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	w.jobs = j
	ns, _ := ParseBoards(list) // checked by the command
	if len(ns) > 0 {
		go func() {
			for _, n := range ns {
				if _, err := j.Precompute(ctx, store.BoardRequest{N: n}, nil); err != nil {
					if ctx.Err() != nil {
						return // shutting down
					}
					logger.Error("asking for a board on start", "n", n, "err", err)
				}
			}
			logger.Info("asked for the boards of --precompute", "boards", list)
		}()
	}
	return w, nil
}

// Precomputer is the engine as the precompute mutation sees it; nil when
// the workers are off.
func (w *serveWorkers) Precomputer() graph.Precomputer {
	if w.jobs == nil {
		return nil
	}
	return w.jobs
}

// riverUI starts River's web UI, to be served at /riverui/ (riverui.go
// mounts it for the admin only); nil when the workers are off.
func (w *serveWorkers) riverUI(ctx context.Context) (http.Handler, error) {
	if w.jobs == nil {
		return nil, nil
	}
	ui, err := w.jobs.newUI("/riverui", w.logger)
	if err != nil {
		return nil, fmt.Errorf("starting River UI: %w", err)
	}
	uictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := ui.Start(uictx); err != nil {
		cancel()
		return nil, fmt.Errorf("starting River UI: %w", err)
	}
	w.cancel = cancel
	return ui, nil
}

// Stop stops the workers (running chunks commit, or roll back and run
// again later, within the engine's stop timeout) and the River UI.
func (w *serveWorkers) Stop() {
	if w.cancel != nil {
		w.cancel()
	}
	if w.jobs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.jobs.Stop(ctx); err != nil {
		w.logger.Error("stopping the workers", "err", err)
	}
}
