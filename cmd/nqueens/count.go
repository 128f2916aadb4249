package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nqueens/nqueens/internal/progress"
	"github.com/nqueens/nqueens/solver"
)

const (
	maxSearchN    = solver.MaxSearchN
	countSynopsis = "N [--workers K] [--json]"
)

// countResult is what count prints. The text form is one "key value" line
// per field, in this order, numbers as plain digits:
//
//	n 12
//	total 14200
//	unique 1787
//	orbit1 0
//	orbit2 4
//	orbit4 18
//	orbit8 1765
//	seconds 0.012
//
// orbitK is the number of symmetry classes with K members (orbit1 is 1 only
// for N=1). --json prints the same fields as one JSON object. On a
// terminal, stderr shows the progress of a count that takes more than a
// second (internal/progress).
type countResult struct {
	N int `json:"n"`
	solver.Counts
	Seconds float64 `json:"seconds"`
}

// countOptions are what count's settings set.
type countOptions struct {
	workers int
	json    bool
}

func newCountOptions() *countOptions { return &countOptions{} }

// settings is count's settings table.
func (o *countOptions) settings() []setting {
	return []setting{
		{flag: "workers", env: flagOnly, into: &o.workers, help: "`K` goroutines count in parallel; 0 means one per core"},
		{flag: "json", env: flagOnly, into: &o.json, help: "print one JSON object instead of key/value lines"},
	}
}

func runCount(ctx context.Context, args []string, c console) error {
	o := newCountOptions()
	pos, err := newSettings("count", o.settings()).parse(args, c, countSynopsis)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.workers < 0 {
		return usagef("--workers must be 0 (one per core) or more, got %d", o.workers)
	}
	n, err := parseN(pos, maxSearchN, "(the largest board the search handles)")
	if err != nil {
		return err
	}

	start := time.Now()
	opts := solver.CountOptions{Workers: o.workers}
	stopProgress := func() {}
	if bar := progress.NewCount(c.stderr, start); bar != nil {
		opts.Progress = bar.Update
		stopProgress = bar.Run()
	}
	counts, err := solver.Count(ctx, n, opts)
	// The bar is erased before the result (or the interrupt's message)
	// is written, on a terminal that may show both.
	stopProgress()
	if err != nil {
		return err
	}
	if err := counts.Check(); err != nil {
		return err
	}
	res := countResult{
		N:       n,
		Counts:  counts,
		Seconds: math.Round(time.Since(start).Seconds()*1e6) / 1e6,
	}

	w := bufio.NewWriter(c.stdout)
	if o.json {
		if err := json.NewEncoder(w).Encode(res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "n %d\n", res.N)
		fmt.Fprintf(w, "total %d\n", res.Total)
		fmt.Fprintf(w, "unique %d\n", res.Unique)
		fmt.Fprintf(w, "orbit1 %d\n", res.Orbit1)
		fmt.Fprintf(w, "orbit2 %d\n", res.Orbit2)
		fmt.Fprintf(w, "orbit4 %d\n", res.Orbit4)
		fmt.Fprintf(w, "orbit8 %d\n", res.Orbit8)
		fmt.Fprintf(w, "seconds %.3f\n", res.Seconds)
	}
	return w.Flush()
}
