package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/nqueens/nqueens/solver"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID, which the syscall
// package does not name: the calling thread's CPU time in nanoseconds.
// (getrusage's RUSAGE_THREAD moves in scheduler ticks of milliseconds, as
// long as a task of N=17.)
const clockThreadCPUTime = 3

// estimateConfig is what one estimate run does.
type estimateConfig struct {
	n       int
	sample  int
	seed    uint64
	budget  time.Duration
	workers int
	// knownTotal is the board's solution count when known (OEIS A000170),
	// for the ratio estimate; 0 when not given.
	knownTotal uint64
}

// taskTime is one sampled task: the CPU time of the thread that counted it
// and the solutions it counted; cut is set when the budget ended the task,
// so that cpu is only a lower bound of its time.
type taskTime struct {
	cpu   time.Duration
	total uint64
	cut   bool
}

// runEstimate times a seeded random sample of the counter's tasks of N and
// estimates from it what counting all of N costs (docs/SCALING.md).
func runEstimate(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load estimate", flag.ContinueOnError)
	var c estimateConfig
	fs.IntVar(&c.sample, "sample", 200, "how many tasks to time at most, drawn at random without replacement")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random sample")
	fs.DurationVar(&c.budget, "budget", time.Minute, "time budget: no task starts after it, and a task still running at it is cut off")
	fs.IntVar(&c.workers, "workers", 1, "tasks timed at once, each on a thread of its own")
	fs.Uint64Var(&c.knownTotal, "total", 0, "the board's solution count, when known (OEIS A000170): adds the ratio estimate, CPU time per solution times it")
	// N comes first or after the flags.
	nArg, err := parseBoardArgs(fs, args, "usage: nqueens-load estimate N [--sample K] [--seed S] [--budget D] [--workers W] [--total T]")
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	n, err := strconv.Atoi(nArg)
	switch {
	case err != nil || n < 4 || n > solver.MaxSearchN:
		return usageError(fmt.Sprintf("estimate: N must be a board size from 4 to %d, got %q", solver.MaxSearchN, nArg))
	case c.sample < 2 || c.budget <= 0 || c.workers < 1:
		return usageError("estimate: --sample must be at least 2, --budget and --workers positive")
	}
	c.n = n

	tasks, err := solver.Tasks(c.n)
	if err != nil {
		return err
	}
	sample := sampleTasks(tasks, c.sample, c.seed)
	start := time.Now()
	times := timeTasks(ctx, sample, c.budget, c.workers)
	if err := ctx.Err(); err != nil {
		return err
	}
	e := estimateFrom(times, len(tasks), c.knownTotal)
	fmt.Fprintf(stdout, "N %d: %d tasks; sample of %d (seed %d), %d timed at once, budget %s\n",
		c.n, len(tasks), len(sample), c.seed, c.workers, c.budget)
	e.print(stdout, time.Since(start))
	return nil
}

// sampleTasks draws k tasks without replacement, in a random order that
// the seed fixes.
func sampleTasks(tasks []solver.Task, k int, seed uint64) []solver.Task {
	rng := rand.New(rand.NewPCG(seed, 0x6e717565656e73))
	perm := rng.Perm(len(tasks))
	out := make([]solver.Task, min(k, len(tasks)))
	for i := range out {
		out[i] = tasks[perm[i]]
	}
	return out
}

// timeTasks counts the tasks in order with the given number of workers
// until they are all done or the budget is spent, and returns the CPU time
// of each task started. CPU time rather than wall time, so that other
// processes on the machine slow the estimate less.
func timeTasks(ctx context.Context, tasks []solver.Task, budget time.Duration, workers int) []taskTime {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	var (
		mu   sync.Mutex
		next int
		out  []taskTime
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(tasks) || ctx.Err() != nil {
					return
				}
				before := threadCPU()
				counts, err := solver.CountTask(ctx, tasks[i])
				t := taskTime{cpu: threadCPU() - before, total: counts.Total, cut: err != nil}
				mu.Lock()
				out = append(out, t)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

func threadCPU() time.Duration {
	var ts syscall.Timespec
	_, _, _ = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// estimate is what a sample says about all the tasks of a board.
type estimate struct {
	tasks, done, cut int
	// mean and sd are the sample's per-task CPU seconds over the finished
	// tasks; lowerMean counts the cut tasks at their time so far.
	mean, sd, lowerMean float64
	// totalCPU is the estimated CPU seconds of the whole board and
	// low, high its 95% confidence interval.
	totalCPU, low, high float64
	// solutions per CPU second over the finished tasks, and the estimated
	// solutions of the board with its 95% interval, which a known count
	// checks.
	solutionsPerSecond                     float64
	solutions, solutionsLow, solutionsHigh float64
	// ratio, ratioLow and ratioHigh are the ratio estimate of the board's
	// CPU seconds and its 95% interval, when its solution count is known.
	knownTotal                 uint64
	ratio, ratioLow, ratioHigh float64
}

// estimateFrom scales a simple random sample up to all the tasks: the
// board's time is the number of tasks times the sample mean, and its 95%
// interval is ±1.96 standard errors, with the finite population correction
// (a sample of all the tasks has no error). When the board's solution
// count is known, the ratio estimate scales the sample's CPU time per
// solution to it instead: a task's time follows its solutions closely, so
// that estimate varies far less from sample to sample than the mean does.
func estimateFrom(times []taskTime, tasks int, knownTotal uint64) estimate {
	e := estimate{tasks: tasks, knownTotal: knownTotal}
	var cpu, cpuSq, sols, solsSq, cutCPU float64
	for _, t := range times {
		s := t.cpu.Seconds()
		if t.cut {
			e.cut++
			cutCPU += s
			continue
		}
		e.done++
		cpu += s
		cpuSq += s * s
		sols += float64(t.total)
		solsSq += float64(t.total) * float64(t.total)
	}
	if e.done+e.cut > 0 {
		e.lowerMean = (cpu + cutCPU) / float64(e.done+e.cut)
	}
	if e.done == 0 {
		return e
	}
	k, big := float64(e.done), float64(tasks)
	e.mean = cpu / k
	meanSols := sols / k
	fpc := 1.0
	if e.done > 1 {
		e.sd = math.Sqrt(max(0, (cpuSq-k*e.mean*e.mean)/(k-1)))
		fpc = math.Sqrt(max(0, 1-k/big))
	}
	sdSols := 0.0
	if e.done > 1 {
		sdSols = math.Sqrt(max(0, (solsSq-k*meanSols*meanSols)/(k-1)))
	}
	half := 1.96 * big * e.sd / math.Sqrt(k) * fpc
	e.totalCPU = big * e.mean
	e.low, e.high = max(0, e.totalCPU-half), e.totalCPU+half
	halfSols := 1.96 * big * sdSols / math.Sqrt(k) * fpc
	e.solutions = big * meanSols
	e.solutionsLow, e.solutionsHigh = max(0, e.solutions-halfSols), e.solutions+halfSols
	if cpu > 0 {
		e.solutionsPerSecond = sols / cpu
	}
	if knownTotal > 0 && sols > 0 && e.done > 1 {
		perSolution := cpu / sols
		var residualSq float64
		for _, t := range times {
			if !t.cut {
				d := t.cpu.Seconds() - perSolution*float64(t.total)
				residualSq += d * d
			}
		}
		e.ratio = perSolution * float64(knownTotal)
		half := 1.96 * big * math.Sqrt(residualSq/(k-1)) / math.Sqrt(k) * fpc
		e.ratioLow, e.ratioHigh = max(0, e.ratio-half), e.ratio+half
	}
	return e
}

func (e estimate) print(w io.Writer, elapsed time.Duration) {
	fmt.Fprintf(w, "timed    %d tasks finished, %d cut off by the budget, in %s\n", e.done, e.cut, elapsed.Round(time.Millisecond))
	if e.done == 0 {
		fmt.Fprintf(w, "per task at least %.1f s of CPU (no task finished: a lower bound)\n", e.lowerMean)
		fmt.Fprintf(w, "board    at least %.3g CPU hours\n", float64(e.tasks)*e.lowerMean/3600)
		return
	}
	if e.done == 1 {
		fmt.Fprintf(w, "per task %s of CPU, one task only: no interval (its spread is unknown)\n", seconds(e.mean))
		fmt.Fprintf(w, "board    %s of CPU if every task took as long\n", seconds(e.totalCPU))
		return
	}
	fmt.Fprintf(w, "per task mean %s, sd %s of CPU\n", seconds(e.mean), seconds(e.sd))
	fmt.Fprintf(w, "board    %s of CPU, 95%% interval %s to %s (%.3g to %.3g CPU hours)\n",
		seconds(e.totalCPU), seconds(e.low), seconds(e.high), e.low/3600, e.high/3600)
	fmt.Fprintf(w, "wall     %s on 1 core, %s on 2\n", seconds(e.totalCPU), seconds(e.totalCPU/2))
	fmt.Fprintf(w, "count    %.4g solutions estimated, 95%% interval %.4g to %.4g; %.3g solutions per CPU second (%.1f ns each)\n",
		e.solutions, e.solutionsLow, e.solutionsHigh, e.solutionsPerSecond, 1e9/e.solutionsPerSecond)
	if e.knownTotal > 0 {
		fmt.Fprintf(w, "ratio    %s of CPU for its %d solutions, 95%% interval %s to %s\n",
			seconds(e.ratio), e.knownTotal, seconds(e.ratioLow), seconds(e.ratioHigh))
	}
	if e.cut > 0 {
		fmt.Fprintf(w, "note     %d cut-off tasks are left out of the mean; counting them at their time so far, the mean is at least %s\n", e.cut, seconds(e.lowerMean))
	}
}

// seconds writes a time given in seconds with about three significant
// digits and a unit that fits it.
func seconds(s float64) string {
	unit := " s"
	switch {
	case s >= 3600:
		s, unit = s/3600, " h"
	case s < 1:
		s, unit = s*1000, " ms"
	}
	digits := 2
	if s >= 100 {
		digits = 0
	} else if s >= 10 {
		digits = 1
	}
	return strconv.FormatFloat(s, 'f', digits, 64) + unit
}
