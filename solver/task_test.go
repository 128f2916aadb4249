package solver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
)

func TestTasksSumToTheReference(t *testing.T) {
	t.Parallel()
	ref := oeis.MustLoad(t)
	for n := 1; n <= 12; n++ {
		tasks, err := solver.Tasks(n)
		if err != nil {
			t.Fatal(err)
		}
		var sum solver.Counts
		for _, task := range tasks {
			// Tasks travel between processes as JSON: count the decoded copy.
			data, err := json.Marshal(task)
			if err != nil {
				t.Fatal(err)
			}
			var back solver.Task
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			c, err := solver.CountTask(context.Background(), back)
			if err != nil {
				t.Fatalf("N=%d %v: %v", n, back, err)
			}
			sum.Add(c)
		}
		if sum.Total != ref[n].Total || sum.Unique != ref[n].Unique || sum.Orbit2 != ref[n].Orbit2 || sum.Orbit4 != ref[n].Orbit4 {
			t.Errorf("N=%d: tasks sum to %+v", n, sum)
		}
	}
}

func TestTasksAreFineGrained(t *testing.T) {
	t.Parallel()
	tasks, err := solver.Tasks(17)
	if err != nil {
		t.Fatal(err)
	}
	// Enough independent pieces for dozens of cores, not one per first queen.
	if len(tasks) < 1000 {
		t.Errorf("N=17 splits into only %d tasks", len(tasks))
	}
}

func TestCountTaskRejectsForeignTasks(t *testing.T) {
	t.Parallel()
	for _, task := range []solver.Task{
		{N: 8, Top: 0, Bottom: 0, Left: 0, Right: 0}, // two queens in column 0
		{N: 8, Top: 9, Bottom: 1, Left: 2, Right: 3}, // off the board
		{N: 8, Top: 6, Bottom: 1, Left: 3, Right: 5}, // valid frame, not canonical
		{N: 3, Top: 0, Bottom: 1, Left: 0, Right: 2},
		{N: 40},
	} {
		if _, err := solver.CountTask(context.Background(), task); err == nil {
			t.Errorf("%v: no error", task)
		}
	}
}

func TestCountStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := solver.Count(ctx, 14, solver.CountOptions{Workers: 2, Progress: func(done, total int) {
		calls++
		if done == 3 {
			cancel()
		}
	}})
	if err == nil {
		t.Fatal("a cancelled count returned no error")
	}
	if calls == 0 {
		t.Fatal("no progress was reported")
	}
}

func TestCountReportsProgressToTheEnd(t *testing.T) {
	t.Parallel()
	last, total := 0, 0
	_, err := solver.Count(context.Background(), 10, solver.CountOptions{Workers: 3, Progress: func(d, tot int) {
		if d != last+1 {
			t.Errorf("progress went from %d to %d", last, d)
		}
		last, total = d, tot
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last != total || total == 0 {
		t.Errorf("progress ended at %d of %d", last, total)
	}
}
