package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// TestEstimateFrom checks the estimator's arithmetic on made-up samples:
// the mean estimate and its interval, the finite population correction,
// the ratio estimate, and cut-off tasks left out of the mean.
func TestEstimateFrom(t *testing.T) {
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// Four tasks of 1, 2, 3 and 6 s out of 100, each 10 solutions a second.
	var sample []taskTime
	for _, s := range []int{1, 2, 3, 6} {
		sample = append(sample, taskTime{cpu: time.Duration(s) * time.Second, total: uint64(10 * s)})
	}
	e := estimateFrom(append(sample, taskTime{cpu: time.Hour, cut: true}), 100, 3000)
	near("mean", e.mean, 3)
	near("sd", e.sd, math.Sqrt(14.0/3)) // squares of the deviations: 4+1+0+9
	near("total", e.totalCPU, 300)
	half := 1.96 * 100 * math.Sqrt(14.0/3) / 2 * math.Sqrt(1-4.0/100)
	near("low", e.low, 300-half)
	near("high", e.high, 300+half)
	near("solutions", e.solutions, 3000)
	near("ratio", e.ratio, 300) // 0.1 s a solution, exactly: no spread
	near("ratio low", e.ratioLow, 300)
	if e.done != 4 || e.cut != 1 {
		t.Errorf("done %d, cut %d; want 4 and 1", e.done, e.cut)
	}
	near("lower mean", e.lowerMean, (12+3600)/5.0)

	// Every task timed: the estimate is the sum, with no error.
	all := estimateFrom(sample, 4, 0)
	near("total of all", all.totalCPU, 12)
	near("low of all", all.low, 12)
	near("high of all", all.high, 12)
}

// TestEstimate times every task of N=8 (a sample as large as the board):
// the count check then finds its 92 solutions exactly.
func TestEstimate(t *testing.T) {
	var out bytes.Buffer
	if err := runEstimate(context.Background(), []string{"8", "--sample", "1000", "--total", "92"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"N 8: 78 tasks; sample of 78", "78 tasks finished, 0 cut off", "count    92 solutions estimated, 95% interval 92 to 92", "ratio    "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := runEstimate(context.Background(), []string{"3"}, &bytes.Buffer{}); err == nil {
		t.Error("estimate 3 (below 4) succeeded")
	}
}
