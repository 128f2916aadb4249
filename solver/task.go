package solver

import (
	"context"
	"fmt"
)

// Task is one independent, serialisable piece of a count. Every solution
// (for N ≥ 4) has exactly one queen on each edge of the board: its "frame".
// A task fixes one frame up to symmetry and counts the solutions of all 8
// images of that frame at once, so the tasks of N together count every
// solution exactly once while searching only about an eighth of them.
//
// Top and Bottom are the columns of the queens in the first and last row,
// Left and Right the rows of the queens in the first and last column. A
// queen in a corner is on two edges: Top=0 and Left=0 is one queen at (0,0).
// For N ≤ 3 there is a single task with all four fields -1: the whole board.
type Task struct {
	N      int `json:"n"`
	Top    int `json:"top"`
	Bottom int `json:"bottom"`
	Left   int `json:"left"`
	Right  int `json:"right"`
}

func (t Task) String() string {
	return fmt.Sprintf("N=%d frame top=%d bottom=%d left=%d right=%d", t.N, t.Top, t.Bottom, t.Left, t.Right)
}

func (t Task) whole() bool { return t.Top < 0 }

// square is a (row, column) pair.
type square struct{ r, c int }

// frameQueens are a frame's distinct queens: four, or fewer when some sit
// in corners. It is a value, so building the frames of every task and
// image allocates nothing.
type frameQueens struct {
	sq [4]square
	n  int
}

func (f *frameQueens) list() []square { return f.sq[:f.n] }

// queens returns the distinct frame queens.
func (t Task) queens() frameQueens {
	n := t.N
	var f frameQueens
	for _, q := range [4]square{{0, t.Top}, {n - 1, t.Bottom}, {t.Left, 0}, {t.Right, n - 1}} {
		dup := false
		for _, o := range f.list() {
			dup = dup || o == q
		}
		if !dup {
			f.sq[f.n] = q
			f.n++
		}
	}
	return f
}

// frameOf rebuilds a task from a set of frame queens; ok is false when the
// queens do not put exactly one queen on each edge.
func frameOf(n int, qs []square) (t Task, ok bool) {
	t = Task{N: n, Top: -1, Bottom: -1, Left: -1, Right: -1}
	set := func(f *int, v int) bool {
		if *f >= 0 {
			return false
		}
		*f = v
		return true
	}
	for _, q := range qs {
		if q.r == 0 && !set(&t.Top, q.c) ||
			q.r == n-1 && !set(&t.Bottom, q.c) ||
			q.c == 0 && !set(&t.Left, q.r) ||
			q.c == n-1 && !set(&t.Right, q.r) {
			return t, false
		}
	}
	return t, t.Top >= 0 && t.Bottom >= 0 && t.Left >= 0 && t.Right >= 0
}

func (t Task) key() int {
	n := t.N
	return ((t.Top*n+t.Bottom)*n+t.Left)*n + t.Right
}

// image maps the whole frame by a symmetry.
func (t Task) image(s Symmetry) Task {
	qs := t.queens()
	for i, q := range qs.list() {
		qs.sq[i].r, qs.sq[i].c = s.mapSquare(t.N, q.r, q.c)
	}
	img, _ := frameOf(t.N, qs.list())
	return img
}

// attacks reports whether two distinct queens attack each other.
func attacks(a, b square) bool {
	dr, dc := a.r-b.r, a.c-b.c
	return dr == 0 || dc == 0 || dr == dc || dr == -dc
}

// Tasks splits the count of N into its tasks, in a fixed order. Their
// counts (CountTask) sum to the board's counts. N=17 has 4,319 tasks and
// N=27 38,604, so they spread over many cores and machines.
func Tasks(n int) ([]Task, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if n <= 3 {
		return []Task{{N: n, Top: -1, Bottom: -1, Left: -1, Right: -1}}, nil
	}
	var tasks []Task
	for top := 0; top < n; top++ {
		for bottom := 0; bottom < n; bottom++ {
			for left := 0; left < n; left++ {
				for right := 0; right < n; right++ {
					t := Task{N: n, Top: top, Bottom: bottom, Left: left, Right: right}
					if t.valid() && t.canonical() {
						tasks = append(tasks, t)
					}
				}
			}
		}
	}
	return tasks, nil
}

// valid reports whether the frame is consistent (corners shared by both of
// their edges) and no two of its queens attack each other.
func (t Task) valid() bool {
	n := t.N
	if t.Top < 0 || t.Top >= n || t.Bottom < 0 || t.Bottom >= n || t.Left < 0 || t.Left >= n || t.Right < 0 || t.Right >= n {
		return false
	}
	f := t.queens()
	qs := f.list()
	if back, ok := frameOf(n, qs); !ok || back != t {
		return false
	}
	for i := range qs {
		for j := i + 1; j < len(qs); j++ {
			if attacks(qs[i], qs[j]) {
				return false
			}
		}
	}
	return true
}

// canonical reports whether t is the smallest of its 8 images.
func (t Task) canonical() bool {
	k := t.key()
	for _, s := range Symmetries[1:] {
		if t.image(s).key() < k {
			return false
		}
	}
	return true
}

// stabilizer returns how many of the 8 frame images are distinct and
// whether the frame is unchanged by a half and by a quarter turn. No frame
// is unchanged by a reflection: its queens would attack each other.
func (t Task) stabilizer() (images int, half, quarter bool) {
	seen := map[int]bool{}
	for _, s := range Symmetries {
		seen[t.image(s).key()] = true
	}
	k := t.key()
	return len(seen), t.image(Rot180).key() == k, t.image(Rot90).key() == k
}

// Validate checks that t is a task of its N as Tasks makes them.
func (t Task) Validate() error {
	if err := checkN(t.N); err != nil {
		return err
	}
	if t.N <= 3 {
		if !t.whole() || t.Bottom != -1 || t.Left != -1 || t.Right != -1 {
			return fmt.Errorf("solver: for N ≤ 3 the only task is the whole board (all fields -1), got %v", t)
		}
		return nil
	}
	if !t.valid() {
		return fmt.Errorf("solver: %v is not a valid frame", t)
	}
	if !t.canonical() {
		return fmt.Errorf("solver: %v is not the canonical image of its frame", t)
	}
	return nil
}

// CountTask counts the solutions of every image of the task's frame, and
// their symmetry classes. It checks the task first. It counts without the
// tables CountTasks counts with (meet.go): tasks that follow each other
// in Tasks's order seldom share one, and building a table costs more
// than one task saves.
func CountTask(ctx context.Context, t Task) (Counts, error) {
	if err := t.Validate(); err != nil {
		return Counts{}, err
	}
	c := countTask(ctx, t, false)
	return c, ctx.Err()
}

// countTask counts the solutions of N whose frame is one of the images of
// t's frame, from a search of t's frame alone. Why that suffices:
//
// Let G be the 8 symmetries, F the frame, and S the solutions whose frame
// is an image of F. A symmetry g maps a solution with frame f to one with
// frame g(f), one to one, so S is closed under G and every image of F has
// as many solutions as F, all of them (the search's count). F has
// images = 8/|Stab(F)| distinct images (orbit–stabilizer), so
//
//	Total = images · all.
//
// A solution p with g(p) = p has g(F(p)) = F(p): its stabilizer lies in
// Stab(F). No reflection leaves a solution or a frame as it is: the
// queens it would pair up, or leave on its axis, attack each other (a
// mirror across a middle line pairs queens of one row or column, across a
// diagonal queens of one diagonal). So Stab(p) is {1}, {1, half turn} or
// the four turns, and p's class, of 8/|Stab(p)| members, has 8, 4 or 2
// of them. A class of S has as many members on each image of
// F (g moves the members on f to those on g(f)), so size/images of them
// on F. Counting on F the members of each class and those a half and a
// quarter turn keep (fixed180 and fixed90, from halfTurnCounts):
//
//   - Stab(F) = {1}: 8 images; every class has 8 members, 1 on F:
//     Orbit8 = all.
//   - Stab(F) = {1, half turn}: 4 images; classes of 8 have 2 members on
//     F, classes of 4 one, which the half turn keeps: Orbit4 = fixed180,
//     all = 2·Orbit8 + Orbit4.
//   - Stab(F) = the four turns: 2 images; classes of 8, 4 and 2 have 4, 2
//     and 1 members on F; the quarter turn keeps those of classes of 2,
//     the half turn those of classes of 2 and 4: Orbit2 = fixed90,
//     fixed180 = Orbit2 + 2·Orbit4, all = Orbit2 + 2·Orbit4 + 4·Orbit8.
//
// Unique is the number of classes, Orbit2 + Orbit4 + Orbit8. It is what
// Burnside's lemma gives, (1/8)·Σ_g |{p ∈ S : g(p) = p}|: the identity keeps
// the images·all solutions of S, each turn in Stab(F) keeps images times
// the members of F it keeps, and the other symmetries keep none of S.
// With four turns: (2·all + 2·fixed180 + 2·2·fixed90)/8 =
// fixed90 + (fixed180 − fixed90)/2 + (all − fixed180)/4.
// TestCountTaskMatchesItsSolutions checks each case against the classes
// of the solutions themselves.
func countTask(ctx context.Context, t Task, tables bool) Counts {
	var c Counts
	if t.whole() {
		for p := range All(t.N) {
			if IsCanonical(p) {
				c.AddOrbit(OrbitSize(p))
			}
		}
		return c
	}
	images, half, quarter := t.stabilizer()
	if !half {
		fs := orient(t)
		n := fs.count(ctx, tables)
		c.Total, c.Unique, c.Orbit8 = 8*n, n, n
		return c
	}
	all := orient(t).count(ctx, tables)
	fixed180, fixed90 := newFrameSearch(t).halfTurnCounts()
	c.Total = uint64(images) * all
	if quarter {
		c.Orbit2 = fixed90
		c.Orbit4 = (fixed180 - fixed90) / 2
		c.Orbit8 = (all - fixed180) / 4
	} else {
		c.Orbit4 = fixed180
		c.Orbit8 = (all - fixed180) / 2
	}
	c.Unique = c.Orbit2 + c.Orbit4 + c.Orbit8
	return c
}
