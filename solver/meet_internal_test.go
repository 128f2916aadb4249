package solver

import (
	"context"
	"testing"
)

// TestMeetingCountsAsTheSearch counts every image of every frame of
// N=8..12, and every frame of N=13 and N=14, with tables of 2 to 6 rows and
// checks each count against the plain search's: every key, bottom queen
// and frame above the meeting row that these boards have, and caches
// that move from one key to the next in any order.
func TestMeetingCountsAsTheSearch(t *testing.T) {
	t.Parallel()
	var checked int
	for n := 8; n <= 14; n++ {
		tasks, err := Tasks(n)
		if err != nil {
			t.Fatal(err)
		}
		symmetries := Symmetries[:]
		if n > 12 {
			symmetries = Symmetries[:1]
		}
		for _, task := range tasks {
			for _, s := range symmetries {
				img := task.image(s)
				fs := newFrameSearch(img)
				want := fs.countFrom(fs.last(), 0, 0, 0)
				for h := 2; h <= 6 && fs.last() >= h+3; h++ {
					if got := fs.countMeeting(context.Background(), h); got != want {
						t.Fatalf("%v with a table of %d rows: %d solutions, the search finds %d", img, h, got, want)
					}
					checked++
				}
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d counts checked", checked)
	}
}

// TestMeetOrderIsAPermutation checks that the order Count counts tasks in
// holds each task once.
func TestMeetOrderIsAPermutation(t *testing.T) {
	t.Parallel()
	for _, n := range []int{4, 15, 16, 17} {
		tasks, err := Tasks(n)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]bool, len(tasks))
		for _, i := range meetOrder(tasks) {
			if seen[i] {
				t.Fatalf("N=%d: task %d twice", n, i)
			}
			seen[i] = true
		}
		for i, ok := range seen {
			if !ok {
				t.Fatalf("N=%d: task %d missing", n, i)
			}
		}
	}
}
