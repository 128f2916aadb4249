package web_test

import (
	"fmt"
	"strconv"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens/solver"
)

// squareTally counts the queens of the solutions on each square, of all
// of them and of the canonical ones (the smallest of their images).
func squareTally(n int, all []solver.Placement) (counts, unique []uint64) {
	counts, unique = make([]uint64, n*n), make([]uint64, n*n)
	for _, p := range all {
		canonical := solver.Canonical(p).Compare(p) == 0
		for r, c := range p {
			counts[r*n+c]++
			if canonical {
				unique[r*n+c]++
			}
		}
	}
	return counts, unique
}

// heatCell is one square of the heat map on screen.
type heatCell struct {
	Count string `json:"count"`
	Title string `json:"title"`
	Label string `json:"label"`
	Share string `json:"share"`
}

// checkHeat checks the heat map on screen against the tally want of a
// board of size n with of solutions (what: "solutions" or "unique
// solutions"): every square's count, its title and label (chess name,
// count, of how many), and the busiest squares in the darkest colour.
func (s *session) checkHeat(n int, want []uint64, of uint64, what string) {
	s.t.Helper()
	s.wait(fmt.Sprintf("the heat map shows %d squares of %s", n*n, what), fmt.Sprintf(
		`document.querySelectorAll('#heat .heat-cell').length === %d && document.querySelector('#heat').getAttribute('aria-label').includes(%q)`, n*n, what))
	var cells []heatCell
	s.eval(`[...document.querySelectorAll('#heat .heat-cell')].map((e) => ({count: e.dataset.count, title: e.title,
		label: e.getAttribute('aria-label'), share: e.style.getPropertyValue('--share').trim()}))`, &cells)
	var max uint64
	for _, v := range want {
		max = maxOf(max, v)
	}
	for i, c := range cells {
		r, col := i/n, i%n
		name := fmt.Sprintf("%c%d", 'a'+col, n-r)
		wantTitle := fmt.Sprintf("%s: %s of %s %s", name, group3(want[i]), group3(of), what)
		if c.Count != strconv.FormatUint(want[i], 10) || len(c.Title) < len(wantTitle) || c.Title[:len(wantTitle)] != wantTitle || c.Label != c.Title {
			s.fail("heat map square %s: %+v; want count %d, title %q…", name, c, want[i], wantTitle)
		}
		if (want[i] == max) != (c.Share == "100%") {
			s.fail("heat map square %s: %d of the busiest %d, colour share %q", name, want[i], max, c.Share)
		}
	}
}

func maxOf(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// heatMap checks the heat map of a board with the given solutions: it is
// offered, opens, and shows the counts of all and of unique solutions.
func (s *session) heatMap(n int, all []solver.Placement, total, unique uint64) {
	s.t.Helper()
	counts, uniqueCounts := squareTally(n, all)
	s.wait("the heat map is offered", `!document.querySelector('#heat-box').hidden`)
	s.do("opening the heat map", chromedp.Click("#heat-box summary"))
	s.checkHeat(n, counts, total, "solutions")
	s.do("counting unique solutions", chromedp.Click(`input[name="heat-mode"][value="unique"]`))
	s.checkHeat(n, uniqueCounts, unique, "unique solutions")
	s.screenshot("heat")
	s.do("back to all solutions", chromedp.Click(`input[name="heat-mode"][value="all"]`), chromedp.Click("#heat-box summary"))
	s.checkHeat(n, counts, total, "solutions")
}

// tally counts the queens of the placements on each square.
func tally(n int, ps []solver.Placement) []uint64 {
	out := make([]uint64, n*n)
	for _, p := range ps {
		for r, c := range p {
			out[r*n+c]++
		}
	}
	return out
}

// filteredHeatMap checks the heat map under filter f: the tally of the
// matching solutions (matches) and of the matching classes' canonical
// members (classes), both from the enumeration, with a legend saying what
// it is over. It leaves the map open on all solutions.
func (s *session) filteredHeatMap(n int, f solver.Filter, matches, classes []solver.Placement) {
	s.t.Helper()
	counts, uniqueCounts := tally(n, matches), tally(n, classes)
	// What a pinned queen means for the map: its square holds every
	// matching solution and the rest of its row none.
	for _, q := range f.Queens {
		for c := range n {
			want := uint64(0)
			if c == q.Col {
				want = uint64(len(matches))
			}
			if counts[q.Row*n+c] != want {
				s.fail("the enumeration's tally of row %d under %v: %d on column %d, want %d", q.Row, f, counts[q.Row*n+c], c, want)
			}
		}
	}
	s.wait("the heat map is offered", `!document.querySelector('#heat-box').hidden`)
	var open bool
	s.eval(`document.querySelector('#heat-box').open`, &open)
	if !open {
		s.do("opening the heat map", chromedp.Click("#heat-box summary"))
	}
	s.checkHeat(n, counts, uint64(len(matches)), "matching solutions")
	s.wait("the legend says the map is over the matching solutions", `document.querySelector('#heat-legend').textContent.includes('Over the solutions that match the filter.')`)
	s.do("counting unique solutions", chromedp.Click(`input[name="heat-mode"][value="unique"]`))
	s.checkHeat(n, uniqueCounts, uint64(len(classes)), "canonical solutions of the matching classes")
	s.do("back to all solutions", chromedp.Click(`input[name="heat-mode"][value="all"]`))
	s.checkHeat(n, counts, uint64(len(matches)), "matching solutions")
}
