package web_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
	"github.com/nqueens/nqueens/web"
)

// The viewer's questions in the browser: the filter board (pin a queen,
// block a square, clear), the listing and its counts under the filter,
// and "Complete this board" on the try-it board. Every expected board and
// count comes from the solver's enumeration and Filter.Matches.

// matching is the solutions of n that f matches, in the listing's order.
func matching(n int, f solver.Filter) []solver.Placement {
	var out []solver.Placement
	for p := range solver.All(n) {
		if f.Matches(p) {
			out = append(out, p.Clone())
		}
	}
	return out
}

// matchingClasses is the canonical members, in order, of the classes of n
// with a member that f matches: the filtered unique listing.
func matchingClasses(n int, f solver.Filter) []solver.Placement {
	var out []solver.Placement
	for u := range solver.AllUnique(n) {
		for _, im := range solver.Images(u) {
			if f.Matches(im.Placement) {
				out = append(out, u.Clone())
				break
			}
		}
	}
	return out
}

// pickFilter chooses, from the enumeration, a queen to pin and a square
// to block on N such that the listing spans more than two pages of size
// and the block takes some solutions away but not all: a filter that
// every step of the test can see work.
func pickFilter(t *testing.T, n, size int) (pin, block solver.Square) {
	t.Helper()
	for r := range n {
		for c := range n {
			pinned := solver.Filter{Queens: []solver.Square{{Row: r, Col: c}}}
			before := len(matching(n, pinned))
			for r2 := range n {
				for c2 := range n {
					if r2 == r {
						continue
					}
					f := pinned
					f.Empty = []solver.Square{{Row: r2, Col: c2}}
					if after := len(matching(n, f)); after < before && after > 2*size {
						return solver.Square{Row: r, Col: c}, solver.Square{Row: r2, Col: c2}
					}
				}
			}
		}
	}
	t.Fatalf("N=%d has no pinned queen and blocked square that leave more than %d solutions", n, 2*size)
	return
}

// filterSquare is the filter board's button for a square.
func filterSquare(sq solver.Square) string {
	return fmt.Sprintf(`#fboard [data-r="%d"][data-c="%d"]`, sq.Row, sq.Col)
}

// clickFilter clicks a square of the filter board and waits until it
// shows mark ("q" pinned, "e" blocked, "" clear), the address holds the
// filter and its listing has loaded: a click aims at where the square is
// on screen, which a listing still loading may move.
func (s *session) clickFilter(sq solver.Square, mark string, f solver.Filter) {
	s.t.Helper()
	s.do(fmt.Sprintf("clicking the filter's square %v", sq), chromedp.Click(filterSquare(sq)))
	s.waitFilter(sq, mark, f)
	s.wait("the listing has loaded", `document.querySelector('#boards').getAttribute('aria-busy') === 'false'`)
}

// waitFilter waits until the filter board shows mark on sq and the
// address holds f, as solver.Filter.String writes it.
func (s *session) waitFilter(sq solver.Square, mark string, f solver.Filter) {
	s.t.Helper()
	s.wait(fmt.Sprintf("the square %v is marked %q and the address holds where=%q", sq, mark, f), fmt.Sprintf(
		`document.querySelector(%q).dataset.mark === %q && (new URLSearchParams(location.search).get('where') ?? '') === %q`,
		filterSquare(sq), mark, f.String()))
}

// checkMatches checks that every board on screen meets f: a queen on
// each pinned square and none on a blocked one.
func (s *session) checkMatches(n int, f solver.Filter) {
	s.t.Helper()
	for _, c := range s.cards() {
		var p solver.Placement
		for _, col := range strings.Split(c.Placement, ",") {
			v, err := strconv.Atoi(col)
			if err != nil {
				s.fail("a card's placement %q: %v", c.Placement, err)
			}
			p = append(p, v)
		}
		if len(p) != n || !f.Matches(p) {
			s.fail("the board %s on screen does not match the filter %s", c.Placement, f)
		}
	}
}

// boardQueens is the try-it board's queens: a column per row, -1 where
// the row has none.
func (s *session) boardQueens(n int) []int {
	s.t.Helper()
	var cols []int
	s.eval(fmt.Sprintf(`(() => { const cols = Array(%d).fill(-1);
		for (const b of document.querySelectorAll('#vboard .sq.queen')) cols[Number(b.dataset.r)] = Number(b.dataset.c);
		return cols; })()`, n), &cols)
	return cols
}

func TestViewerFilterInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	const n, size = 8, 6

	// N=8 in a real store; filtered listings and counts come from the
	// solver's constrained search, as for any board.
	st := sqlitetest.OpenTemp(t)
	storetest.Load(t.Context(), t, st, n, solver.DefaultChunkDepth(n))
	api := apitest.Setup(t, func(c *server.Config) { c.Graph.Boards, c.Graph.Stored = st, st })
	api.Server.Handle("/", web.Handler())
	s := startBrowser(t, chromium, api.Base)
	requests := guard(t, s.ctx, api.Base)

	all := matching(n, solver.Filter{})
	pin, block := pickFilter(t, n, size)
	pinned := solver.Filter{Queens: []solver.Square{pin}}
	both := solver.Filter{Queens: []solver.Square{pin}, Empty: []solver.Square{block}}
	wantPinned, want := matching(n, pinned), matching(n, both)
	t.Logf("pinning %v (%d solutions), blocking %v (%d)", pin, len(wantPinned), block, len(want))

	s.do("loading N=8, 6 a page", chromedp.Navigate(fmt.Sprintf("%s/?n=%d&size=%d", api.Base, n, size)))
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %d", size, len(all)))
	s.waitText("#fstatus", "No filter: every solution is listed.")
	var label string
	s.eval(fmt.Sprintf(`document.querySelector(%q).getAttribute('aria-label')`, filterSquare(solver.Square{Row: n - 1, Col: 0})), &label)
	if label != "a1: pin a queen" {
		s.fail("the filter's bottom-left square is labelled %q, want %q", label, "a1: pin a queen")
	}

	// --- pin a queen ------------------------------------------------------
	s.clickFilter(pin, "q", pinned)
	s.waitRange(fmt.Sprintf("Matching solutions 1–%d of %d", size, len(wantPinned)))
	s.waitText("#match-total", group3(uint64(len(wantPinned))))
	s.checkPlacements(wantPinned[:size], 1)
	s.checkMatches(n, pinned)
	s.filteredHeatMap(n, pinned, wantPinned, matchingClasses(n, pinned))

	// --- block a square: one click pins a queen there, the next blocks it --
	s.clickFilter(block, "q", solver.Filter{Queens: sortSquares(pin, block)})
	s.clickFilter(block, "e", both)
	s.waitRange(fmt.Sprintf("Matching solutions 1–%d of %d", size, len(want)))
	s.waitText("#match-total", group3(uint64(len(want))))
	s.waitText("#match-unique", group3(uint64(len(matchingClasses(n, both)))))
	s.waitText("#total", group3(uint64(len(all)))) // the board's own count stays
	s.screenshot("filter")

	// --- page forward to the end, then back to the start -----------------
	pages := (len(want) + size - 1) / size
	for i := range pages {
		from, to := i*size+1, min((i+1)*size, len(want))
		if i > 0 {
			s.do("clicking Next", chromedp.Click("#next"))
		}
		s.waitRange(fmt.Sprintf("Matching solutions %d–%d of %d", from, to, len(want)))
		s.checkPlacements(want[from-1:to], from)
		s.checkMatches(n, both)
	}
	var nextDisabled bool
	s.eval(`document.querySelector('#next').disabled`, &nextDisabled)
	if !nextDisabled {
		s.fail("Next is enabled on the last page of the filtered listing")
	}
	for i := pages - 2; i >= 0; i-- {
		from, to := i*size+1, (i+1)*size
		s.do("clicking Previous", chromedp.Click("#prev"))
		s.waitRange(fmt.Sprintf("Matching solutions %d–%d of %d", from, to, len(want)))
		s.checkPlacements(want[from-1:to], from)
	}

	// --- the filter is in the address: a reload keeps it ------------------
	s.do("clicking Next", chromedp.Click("#next"))
	s.waitRange(fmt.Sprintf("Matching solutions %d–%d of %d", size+1, min(2*size, len(want)), len(want)))
	s.do("reloading", chromedp.Reload())
	s.waitRange(fmt.Sprintf("Matching solutions %d–%d of %d", size+1, min(2*size, len(want)), len(want)))
	s.waitFilter(block, "e", both)
	s.waitFilter(pin, "q", both)
	s.checkPlacements(want[size:min(2*size, len(want))], size+1)

	// --- go to # counts among the matches --------------------------------
	k := len(want) - 1
	s.do(fmt.Sprintf("jumping to #%d", k), chromedp.SendKeys("#jump", strconv.Itoa(k)), chromedp.Click("#jump-form button"))
	s.waitRange(fmt.Sprintf("Matching solutions %d–%d of %d", k, len(want), len(want)))
	s.checkPlacements(want[k-1:], k)

	// --- the unique listing: the classes with a member that matches -------
	classes := matchingClasses(n, both)
	s.do("picking the unique listing", chromedp.Click(`input[name="mode"][value="unique"]`))
	s.waitRange(fmt.Sprintf("Matching classes 1–%d of %d", min(size, len(classes)), len(classes)))
	s.checkPlacements(classes[:min(size, len(classes))], 1)
	s.do("picking all solutions", chromedp.Click(`input[name="mode"][value="all"]`))
	s.waitRange(fmt.Sprintf("Matching solutions 1–%d of %d", size, len(want)))

	// --- the keyboard: arrows move over the board, Enter cycles a square --
	// The board is one Tab stop, on its top-left square until the arrows move it.
	s.do("focusing the filter board", chromedp.Focus(`#fboard .sq[tabindex="0"]`))
	s.wait("the top-left square has the focus", `document.activeElement.matches('#fboard [data-r="0"][data-c="0"]')`)
	key, to := kb.ArrowDown, solver.Square{Row: 1, Col: 0}
	if to == pin || to == block {
		key, to = kb.ArrowRight, solver.Square{Row: 0, Col: 1}
	}
	if to == pin || to == block {
		t.Fatalf("the keyboard's steps from a8 land on the filter's squares %v and %v", pin, block)
	}
	s.do("pressing an arrow", chromedp.KeyEvent(key))
	s.wait("the focus moved", fmt.Sprintf(`document.activeElement.matches(%q)`, filterSquare(to)))
	keyed := solver.Filter{Queens: sortSquares(pin, to), Empty: []solver.Square{block}}
	s.do("pressing Enter", chromedp.KeyEvent(kb.Enter))
	s.waitFilter(to, "q", keyed)
	s.wait("the square's label says what the next press does", fmt.Sprintf(
		`document.querySelector(%q).getAttribute('aria-label') === %q`, filterSquare(to), fmt.Sprintf("%c%d, queen pinned: block this square", 'a'+to.Col, n-to.Row)))
	s.waitText("#match-total", group3(uint64(len(matching(n, keyed)))))
	s.do("pressing Enter", chromedp.KeyEvent(kb.Enter))
	s.waitFilter(to, "e", solver.Filter{Queens: []solver.Square{pin}, Empty: sortSquares(block, to)})
	s.do("pressing Enter", chromedp.KeyEvent(kb.Enter))
	s.waitFilter(to, "", both)
	s.waitRange(fmt.Sprintf("Matching solutions 1–%d of %d", size, len(want)))

	// --- clear the filter ---------------------------------------------------
	s.do("clearing the filter", chromedp.Click("#fclear"))
	s.waitFilter(pin, "", solver.Filter{})
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %d", size, len(all)))
	s.checkPlacements(all[:size], 1)
	s.wait("the filter's counts are gone", `document.querySelector('#match-box').hidden`)
	// Without the filter the heat map is the board's again.
	s.wait("the heat map is the board's again", `!document.querySelector('#heat').getAttribute('aria-label').includes('matching')`)
	allCounts, _ := squareTally(n, all)
	s.checkHeat(n, allCounts, uint64(len(all)), "solutions")
	if u := s.url(); u != fmt.Sprintf("/?n=%d&mode=all&size=%d", n, size) {
		s.fail("address bar %q after clearing the filter", u)
	}
	// Back brings the filter back, board and all; Forward takes it away.
	s.do("going Back", chromedp.Evaluate[chromedp.Void](`history.back()`, chromedp.EvalIgnoreExceptions))
	s.waitFilter(pin, "q", both)
	s.waitFilter(block, "e", both)
	s.waitRange(fmt.Sprintf("Matching solutions 1–%d of %d", size, len(want)))
	s.waitText("#match-total", group3(uint64(len(want))))
	s.do("going Forward", chromedp.Evaluate[chromedp.Void](`history.forward()`, chromedp.EvalIgnoreExceptions))
	s.waitFilter(pin, "", solver.Filter{})
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %d", size, len(all)))

	// --- a filter the page cannot use falls back to none, and says so -------
	for _, c := range []struct{ where, says string }{
		{"q8.0", `where=“q8.0” is not a filter of N = 8: q8.0 is off the board: rows and columns of N = 8 go from 0 to 7. Showing every solution.`},
		{"x1.2", `where=“x1.2” is not a filter of N = 8: “x1.2” is not a square of a filter: write q<row>.<col> for a pinned queen and e<row>.<col> for a blocked square, comma-separated, e.g. q0.3,e1.1. Showing every solution.`},
		{"q1.2,e1.2", `where=“q1.2,e1.2” is not a filter of N = 8: the square 1.2 is named twice. Showing every solution.`},
	} {
		s.do("loading where="+c.where, chromedp.Navigate(fmt.Sprintf("%s/?n=%d&where=%s", api.Base, n, c.where)))
		s.waitRange(fmt.Sprintf("Solutions 1–12 of %d", len(all)))
		s.waitText("#notice .msg", c.says)
		s.noError("where=" + c.where)
		if u := s.url(); u != fmt.Sprintf("/?n=%d&mode=all", n) {
			s.fail("where=%s: address bar %q, want the unfiltered /?n=%d&mode=all", c.where, u, n)
		}
	}

	// --- complete this board -----------------------------------------------
	s.do("scrolling to the validator", chromedp.ScrollIntoView("#validate-heading"))
	cols := slices.Repeat([]int{-1}, n)
	seed := want[0]
	for _, r := range []int{0, 3} {
		s.placeQueen(cols, r, seed[r])
	}
	s.do("pressing Complete this board", chromedp.Click("#vcomplete"))
	s.wait("the board is completed", `document.querySelector('#vcompletion').dataset.state === 'ok' && document.querySelector('#verdict').classList.contains('ok')`)
	got := s.boardQueens(n)
	if err := solver.ValidateN(n, got); err != nil {
		s.fail("the completed board %v is not a solution: %v", got, err)
	}
	for _, r := range []int{0, 3} {
		if got[r] != seed[r] {
			s.fail("the completed board %v moved the queen of row %d from column %d", got, r, seed[r])
		}
	}
	s.screenshot("complete")

	// Two queens that attack no other but that no solution has together:
	// the server proves it impossible. Found by enumeration.
	s.do("clearing the board", chromedp.Click("#vclear"))
	cols = slices.Repeat([]int{-1}, n)
	s.waitMarks(cols)
	a, b, ok := impossiblePair(n)
	if !ok {
		t.Fatalf("every two queens of N=%d that do not attack each other are in a solution", n)
	}
	s.placeQueen(cols, a.Row, a.Col)
	s.placeQueen(cols, b.Row, b.Col)
	s.do("pressing Complete this board", chromedp.Click("#vcomplete"))
	s.wait("the board cannot be completed", `document.querySelector('#vcompletion').dataset.state === 'bad' && document.querySelector('#vcompletion-reason') !== null`)
	if reason := s.text("#vcompletion-reason"); reason == "" {
		s.fail("IMPOSSIBLE without a reason")
	}
	if got := s.boardQueens(n); !slices.Equal(got, cols) {
		s.fail("an impossible completion changed the board to %v, want %v", got, cols)
	}
	s.placeQueen(cols, b.Row, b.Col) // a change puts the answer away
	s.wait("the completion's answer has gone", `document.querySelector('#vcompletion').textContent === ''`)

	s.checkConsole()
	if off, seen, _ := requests.snapshot(); len(off) > 0 {
		t.Fatalf("the viewer asked for something off its origin: %v (all: %v)", off, seen)
	}
}

// TestViewerFilterCountUnknownInBrowser checks the filtered listing of a
// board whose matches cannot be counted within the server's time budget:
// the pages are listed, and the count says it is not known.
func TestViewerFilterCountUnknownInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	// N=20 with one square blocked, the last queen of its first solution:
	// a page is found at once, its count (nearly all of N=20's 39 billion
	// solutions) never within the budget.
	api := apitest.Setup(t, func(c *server.Config) { c.Graph.SolverBudget = 300 * time.Millisecond })
	api.Server.Handle("/", web.Handler())
	s := startBrowser(t, chromium, api.Base)
	requests := guard(t, s.ctx, api.Base)
	const n, size = 20, 12
	first := firstSolutions(n, 1)[0]
	f := solver.Filter{Empty: []solver.Square{{Row: n - 1, Col: first[n-1]}}}

	var want []solver.Placement
	for p := range solver.All(n) {
		if f.Matches(p) {
			want = append(want, p.Clone())
			if len(want) == 2*size {
				break
			}
		}
	}
	s.do("loading N=20 with a blocked square", chromedp.Navigate(fmt.Sprintf("%s/?n=%d&where=%s", api.Base, n, f)))
	s.waitRange(fmt.Sprintf("Matching solutions 1–%d · count not known within the time budget", size))
	s.checkPlacements(want[:size], 1)
	s.waitText("#match-total", "not known")
	s.wait("the summary says why", `document.querySelector('#match-note .code')?.textContent === 'TIMEOUT'`)
	s.wait("the heat map says its tally is not known, and why", `!document.querySelector('#heat-box').hidden && document.querySelector('#heat .heat-cell') === null &&
		document.querySelector('#heat-legend').textContent.startsWith('Not known') && document.querySelector('#heat-legend .code')?.textContent === 'TIMEOUT'`)
	s.noError("under a filter that cannot be counted")
	s.do("clicking Next", chromedp.Click("#next"))
	s.waitRange(fmt.Sprintf("Matching solutions %d–%d · count not known within the time budget", size+1, 2*size))
	s.checkPlacements(want[size:], size+1)
	s.screenshot("filter-count-unknown")

	s.checkConsole()
	if off, seen, _ := requests.snapshot(); len(off) > 0 {
		t.Fatalf("the viewer asked for something off its origin: %v (all: %v)", off, seen)
	}
}

// sortSquares returns the squares in the order the address writes them:
// by row, then column.
func sortSquares(sq ...solver.Square) []solver.Square {
	slices.SortFunc(sq, func(a, b solver.Square) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	return sq
}

// impossiblePair finds two queens of N in different rows, columns and
// diagonals that no solution has together.
func impossiblePair(n int) (a, b solver.Square, ok bool) {
	for c1 := range n {
		for r2 := 1; r2 < n; r2++ {
			for c2 := range n {
				if c2 == c1 || c2-c1 == r2 || c1-c2 == r2 {
					continue
				}
				f := solver.Filter{Queens: []solver.Square{{Row: 0, Col: c1}, {Row: r2, Col: c2}}}
				if len(matching(n, f)) == 0 {
					return f.Queens[0], f.Queens[1], true
				}
			}
		}
	}
	return a, b, false
}
