package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/internal/testgate"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
	"github.com/nqueens/nqueens/web"
)

// The end-to-end test drives headless Chromium against the real server
// (graph + server + this package) over a real SQLite store, plugged in
// as the service plugs it in and filled through the
// store's write path (PlanBoard, WriteChunk, FinishBoard).
//
// Environment:
//
//	NQUEENS_CHROMIUM         the browser binary, and no other (default: chromium on PATH, /usr/bin/chromium)
//	NQUEENS_REQUIRE_BROWSER  1: fail, not skip, when there is no browser
//	NQUEENS_SCREENSHOT_DIR   where the screenshots go (default: a temporary directory)
//	NQUEENS_README_SCREENSHOT  also write the README's screenshot to this path (absolute:
//	                         go test runs in web/), e.g. $PWD/docs/viewer.png

// findBrowser returns the Chromium binary, or skips (fails in CI).
func findBrowser(t *testing.T) string {
	t.Helper()
	cands := []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"}
	if env := os.Getenv("NQUEENS_CHROMIUM"); env != "" {
		cands = []string{env} // that one or none
	}
	for _, c := range cands {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	browserTests.Missing(t, fmt.Sprintf("no Chromium found (tried %s)", strings.Join(cands, ", ")))
	return ""
}

// browserTests is the suite of tests in headless Chromium.
var browserTests = testgate.Suite{
	Name:    "the browser tests (viewer, playground)",
	Require: "NQUEENS_REQUIRE_BROWSER",
	Enable:  "install Debian's Chromium: apt-get install -y chromium (or name a browser in NQUEENS_CHROMIUM)",
}

// group3 writes n with thousands separators, as the page does.
func group3(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func placementText(p solver.Placement) string {
	parts := make([]string, len(p))
	for i, c := range p {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// session is one browser tab on the test server, with the helpers the
// test's steps use. Every helper fails the test with the page's state and
// a screenshot when the page does not do what it should in time.
type session struct {
	t        *testing.T
	ctx      context.Context
	base     string
	shotDir  string
	mu       sync.Mutex
	problems []string // uncaught exceptions and console errors
}

func (s *session) fail(format string, a ...any) {
	s.t.Helper()
	msg := fmt.Sprintf(format, a...)
	if state, err := chromedp.Run(s.ctx, chromedp.Evaluate[string](`JSON.stringify({
		url: location.href,
		error: document.querySelector('#error')?.innerText,
		state: document.querySelector('#state')?.innerText,
		range: document.querySelector('#range')?.innerText,
		verdict: document.querySelector('#verdict')?.innerText,
	})`)); err == nil {
		msg += "\npage: " + state
	}
	s.screenshot("failure")
	s.mu.Lock()
	if len(s.problems) > 0 {
		msg += "\nconsole: " + strings.Join(s.problems, "\n  ")
	}
	s.mu.Unlock()
	s.t.Fatal(msg)
}

func (s *session) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		s.fail("%s: %v", what, err)
	}
}

// wait polls a JavaScript predicate until it holds. A poll that loses its
// page (a navigation replaced the document under it) starts again on the
// new one.
func (s *session) wait(what, predicate string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := chromedp.Run(s.ctx, chromedp.Poll[chromedp.Void](predicate,
			chromedp.WithPollingTimeout(time.Until(deadline)), chromedp.WithPollingInterval(25*time.Millisecond)))
		if err == nil {
			return
		}
		if !lostPage(err) || time.Now().After(deadline) {
			s.fail("waiting until %s (%s): %v", what, predicate, err)
		}
	}
}

// lostPage reports whether an evaluation failed because its document went
// away under it, as DevTools words it.
func lostPage(err error) bool {
	for _, m := range []string{"Cannot find context with specified id", "Execution context was destroyed", "Inspected target navigated or closed"} {
		if strings.Contains(err.Error(), m) {
			return true
		}
	}
	return false
}

// waitText waits until the element's text is want.
func (s *session) waitText(sel, want string) {
	s.t.Helper()
	s.wait(fmt.Sprintf("%s shows %q", sel, want),
		fmt.Sprintf(`document.querySelector(%q)?.textContent.trim() === %q`, sel, want))
}

func (s *session) eval(expr string, out any) {
	s.t.Helper()
	raw, err := chromedp.Run(s.ctx, chromedp.Evaluate[[]byte](expr))
	if err != nil {
		s.fail("evaluating %s: %v", expr, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		s.fail("decoding %s: %v", raw, err)
	}
}

func (s *session) text(sel string) string {
	s.t.Helper()
	var out string
	s.eval(fmt.Sprintf(`document.querySelector(%q)?.textContent.trim() ?? null`, sel), &out)
	return out
}

// card is one board of the page on screen.
type card struct {
	Placement string `json:"placement"`
	Rank      string `json:"rank"`
}

func (s *session) cards() []card {
	s.t.Helper()
	var cs []card
	s.eval(`[...document.querySelectorAll('#boards .card')].map((b) => ({placement: b.dataset.placement, rank: b.dataset.rank}))`, &cs)
	return cs
}

// waitRange waits for a page to be on screen with the range text want.
func (s *session) waitRange(want string) {
	s.t.Helper()
	s.wait("the page "+want+" is shown",
		fmt.Sprintf(`document.querySelector('#boards').getAttribute('aria-busy') === 'false' && document.querySelector('#range').textContent === %q`, want))
}

func (s *session) screenshot(name string) string {
	s.t.Helper()
	png, err := chromedp.Run(s.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	path := filepath.Join(s.shotDir, "screenshot-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	s.t.Logf("screenshot: %s", path)
	return path
}

func (s *session) url() string {
	s.t.Helper()
	var u string
	s.eval(`location.pathname + location.search`, &u)
	return u
}

// noError fails the test when the error banner is shown.
func (s *session) noError(when string) {
	s.t.Helper()
	var hidden bool
	s.eval(`document.querySelector('#error').hidden`, &hidden)
	if !hidden {
		s.fail("%s the page shows an error", when)
	}
}

// placementWords writes a placement as the cards do: its columns as
// numbers, spaced.
func placementWords(p solver.Placement) string {
	return strings.ReplaceAll(placementText(p), ",", " ")
}

// firstSolutions is the first k solutions of N in the listing's order.
func firstSolutions(n, k int) []solver.Placement {
	var out []solver.Placement
	for p := range solver.All(n) {
		out = append(out, p.Clone())
		if len(out) == k {
			break
		}
	}
	return out
}

// checkPlacements checks the boards on screen: want, in order, ranked
// from firstRank (0: ranks unknown), their columns written as numbers.
func (s *session) checkPlacements(want []solver.Placement, firstRank int) {
	s.t.Helper()
	var shown []struct {
		Placement string `json:"placement"`
		Rank      string `json:"rank"`
		Words     string `json:"words"`
	}
	s.eval(`[...document.querySelectorAll('#boards .card')].map((b) => ({placement: b.dataset.placement, rank: b.dataset.rank, words: b.querySelector('.placement').textContent}))`, &shown)
	if len(shown) != len(want) {
		s.fail("%d boards on screen, want %d", len(shown), len(want))
	}
	for i, c := range shown {
		rank := ""
		if firstRank > 0 {
			rank = strconv.Itoa(firstRank + i)
		}
		if c.Placement != placementText(want[i]) || c.Rank != rank || c.Words != placementWords(want[i]) {
			s.fail("board %d shows %s (%q) as #%s, want %s (%q) as #%s", i, c.Placement, c.Words, c.Rank, placementText(want[i]), placementWords(want[i]), rank)
		}
	}
}

// threatened is what the try-it board should mark for the queens of cols
// (-1: none in that row): the empty squares and the queens that a queen
// of another row attacks, top row first.
func threatened(cols []int) (squares, queens [][2]int) {
	n := len(cols)
	for r := range n {
		for c := range n {
			hit := false
			for r2, c2 := range cols {
				if c2 >= 0 && r2 != r && (c2 == c || c2-c == r2-r || c2-c == r-r2) {
					hit = true
				}
			}
			switch {
			case hit && cols[r] == c:
				queens = append(queens, [2]int{r, c})
			case hit:
				squares = append(squares, [2]int{r, c})
			}
		}
	}
	return squares, queens
}

// waitMarks waits until the try-it board marks what threatened says.
func (s *session) waitMarks(cols []int) {
	s.t.Helper()
	squares, queens := threatened(cols)
	want, err := json.Marshal([2][][2]int{append([][2]int{}, squares...), append([][2]int{}, queens...)})
	if err != nil {
		s.t.Fatal(err)
	}
	s.wait(fmt.Sprintf("the board %v marks %s", cols, want), fmt.Sprintf(`JSON.stringify(['.sq.hit', '.sq.clash'].map((sel) =>
		[...document.querySelectorAll('#vboard ' + sel)].map((b) => [Number(b.dataset.r), Number(b.dataset.c)]))) === %q`, want))
}

// placeQueen clicks square (r, c) of the try-it board, which puts the
// queen of row r there or takes it away, and waits for the marks.
func (s *session) placeQueen(cols []int, r, c int) {
	s.t.Helper()
	s.do(fmt.Sprintf("clicking row %d column %d", r, c), chromedp.Click(fmt.Sprintf(`#vboard [data-r="%d"][data-c="%d"]`, r, c)))
	if cols[r] == c {
		cols[r] = -1
	} else {
		cols[r] = c
	}
	s.waitMarks(cols)
}

// startBrowser starts headless Chromium on a tab of its own, collecting
// the page's console errors, and returns the session on base. The browser
// ends with the test.
func startBrowser(t *testing.T, chromium, base string) *session {
	t.Helper()
	shotDir := os.Getenv("NQUEENS_SCREENSHOT_DIR")
	if shotDir == "" {
		shotDir = t.TempDir()
	} else if err := os.MkdirAll(shotDir, 0o755); err != nil {
		t.Fatal(err)
	}

	// The flags keep Chromium off the network: this machine has none but
	// loopback, and Chromium's background lookups would only fail.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 940),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	)
	t.Cleanup(cancelAlloc)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	// The first action starts the browser, which lives as long as that
	// action's context: run it on the tab's own.
	if err := chromedp.Do(tabCtx, chromedp.EmulateViewport(1280, 940)); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}

	s := &session{t: t, ctx: tabCtx, base: base, shotDir: shotDir}
	messages := chromedp.Console(tabCtx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				s.mu.Lock()
				s.problems = append(s.problems, m.String()+" ("+m.URL+")")
				s.mu.Unlock()
			}
		}
	}()
	return s
}

// checkConsole fails the test when the page wrote errors to the console.
func (s *session) checkConsole() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems) > 0 {
		s.t.Fatalf("the page wrote errors to the console:\n  %s", strings.Join(s.problems, "\n  "))
	}
}

func TestViewerInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	ref := oeis.MustLoad(t)
	ctx := t.Context()

	// A real store: SQLite in a temporary directory. N=8 is done; N=10 is
	// half written, so that the page follows its progress live.
	st := sqlitetest.OpenTemp(t)
	storetest.Load(ctx, t, st, 8, solver.DefaultChunkDepth(8))
	depth10 := solver.DefaultChunkDepth(10)
	chunks10, err := solver.Chunks(10, depth10)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := storetest.WritesOf(t, st).PlanBoard(ctx, store.BoardPlan{N: 10, ChunkDepth: depth10, StoresSolutions: true, SolverVersion: storetest.SolverVersion}); err != nil {
		t.Fatal(err)
	}
	half := len(chunks10) / 2
	for _, c := range chunks10[:half] {
		if _, err := storetest.WritesOf(t, st).WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}); err != nil {
			t.Fatal(err)
		}
	}

	api := apitest.Setup(t, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
		c.Graph.PollInterval = 100 * time.Millisecond
	})
	api.Server.Handle("/", web.Handler())

	s := startBrowser(t, chromium, api.Base)

	all := slices.Collect(func(yield func(solver.Placement) bool) {
		for p := range solver.All(8) {
			if !yield(p.Clone()) {
				return
			}
		}
	})
	if uint64(len(all)) != ref[8].Total {
		t.Fatalf("solver.All(8) has %d solutions, OEIS %d", len(all), ref[8].Total)
	}
	size := 12 // the page's default page size

	// --- load / and follow N=10 while it is being computed ----------------
	s.do("loading /", chromedp.Navigate(api.Base+"/"))
	s.wait("the N selector lists 1..27", `document.querySelectorAll('#n option').length === 27`)
	s.do("picking N=10", chromedp.SetValue("#n", "10"), chromedp.Click("#show"))
	s.waitText("#summary-n", "10")
	s.waitText("#state", "computing")
	s.wait("no heat map while computing", `document.querySelector('#heat-box').hidden`)
	s.wait("the progress bar shows", `!document.querySelector('#progress-box').hidden && document.querySelector('#progress').value > 0`)
	s.screenshot("progress")
	wantChunks := fmt.Sprintf("%d of %d chunks", half, len(chunks10))
	if got := s.text("#progress-text"); !strings.Contains(got, wantChunks) {
		s.fail("progress text %q does not say %q", got, wantChunks)
	}
	for _, c := range chunks10[half:] {
		if _, err := storetest.WritesOf(t, st).WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := storetest.WritesOf(t, st).FinishBoard(ctx, 10); err != nil {
		t.Fatal(err)
	}
	s.waitText("#state", "done") // pushed over the websocket
	s.waitText("#total", group3(ref[10].Total))
	s.wait("the time it took is shown", `document.querySelector('#took').textContent.includes('precomputed in')`)
	// N ≥ 10: the cards write columns as numbers (10, 11, …), not as the
	// compact form's base-36 letters.
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %s", size, group3(ref[10].Total)))
	s.checkPlacements(firstSolutions(10, size), 1)

	// --- pick N=8: counts, first page ----------------------------------------
	s.do("picking N=8", chromedp.SetValue("#n", "8"), chromedp.Click("#show"))
	s.waitText("#summary-n", "8")
	s.waitText("#total", group3(ref[8].Total))
	s.waitText("#unique", group3(ref[8].Unique))
	s.waitText("#state", "done")
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %s", size, group3(ref[8].Total)))
	if u := s.url(); u != "/?n=8&mode=all" {
		s.fail("address bar %q, want /?n=8&mode=all", u)
	}
	s.do("settling", chromedp.Sleep(300*time.Millisecond)) // board images decoded
	readme := s.screenshot("n8")
	if dst := os.Getenv("NQUEENS_README_SCREENSHOT"); dst != "" && readme != "" {
		b, err := os.ReadFile(readme)
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	// --- the page's answers came compressed, as the browser asked ----------
	// (Resource Timing: a same-origin fetch shows its bytes on the wire
	// and decoded.)
	var sizes []struct{ Encoded, Decoded int }
	s.eval(`performance.getEntriesByType('resource').filter(r => r.name.includes('/graphql') && r.decodedBodySize >= 1024).map(r => ({Encoded: r.encodedBodySize, Decoded: r.decodedBodySize}))`, &sizes)
	if len(sizes) == 0 {
		s.fail("no answer of /graphql of 1 KiB or more seen")
	}
	for _, sz := range sizes {
		if sz.Encoded*2 > sz.Decoded {
			s.fail("an answer of %d bytes came as %d: want it compressed (Accept-Encoding)", sz.Decoded, sz.Encoded)
		}
	}

	// --- the heat map of N=8: every square against the solver's tally ------
	s.heatMap(8, all, ref[8].Total, ref[8].Unique)

	// --- page to the end with Next, checking every board against the solver --
	var seen []card
	for page := 0; ; page++ {
		seen = append(seen, s.cards()...)
		var nextDisabled bool
		s.eval(`document.querySelector('#next').disabled`, &nextDisabled)
		if nextDisabled {
			break
		}
		if page > len(all)/size+1 {
			s.fail("Next is still enabled after %d pages", page)
		}
		from := len(seen) + 1
		to := min(len(seen)+size, len(all))
		s.do("clicking Next", chromedp.Click("#next"))
		s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", from, to, len(all)))
	}
	if len(seen) != len(all) {
		s.fail("paging forward showed %d boards, want %d", len(seen), len(all))
	}
	for i, c := range seen {
		if c.Placement != placementText(all[i]) || c.Rank != strconv.Itoa(i+1) {
			s.fail("board %d shows %s as #%s, want %s as #%d", i, c.Placement, c.Rank, placementText(all[i]), i+1)
		}
	}
	lastFrom := (len(all)-1)/size*size + 1
	if !strings.Contains(s.url(), "after=") {
		s.fail("address bar %q holds no cursor", s.url())
	}

	// … and back: the arrow key, the browser's Back button, First, Last.
	s.do("pressing ←", chromedp.Focus("#boards-heading"), chromedp.KeyEvent(kb.ArrowLeft))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", lastFrom-size, lastFrom-1, len(all)))
	s.do("going Back", chromedp.Evaluate[chromedp.Void](`history.back()`, chromedp.EvalIgnoreExceptions))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", lastFrom, len(all), len(all)))
	s.do("clicking First", chromedp.Click("#first"))
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %d", size, len(all)))
	s.do("clicking Last", chromedp.Click("#last"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", len(all)-size+1, len(all), len(all)))
	if got := s.cards(); got[len(got)-1].Placement != placementText(all[len(all)-1]) {
		s.fail("the last board is %s, want %s", got[len(got)-1].Placement, placementText(all[len(all)-1]))
	}
	s.do("reloading", chromedp.Reload())
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", len(all)-size+1, len(all), len(all)))
	s.do("pressing Home", chromedp.Focus("#boards-heading"), chromedp.KeyEvent(kb.Home))
	s.waitRange(fmt.Sprintf("Solutions 1–%d of %d", size, len(all)))

	// --- jump to #50 -----------------------------------------------------------
	const k = 50
	s.do("jumping to #50", chromedp.SendKeys("#jump", strconv.Itoa(k)), chromedp.Click("#jump-form button"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", k, k+size-1, len(all)))
	first := s.cards()[0]
	if first.Placement != placementText(all[k-1]) || first.Rank != strconv.Itoa(k) {
		s.fail("after the jump the first board is %s as #%s, want %s as #%d", first.Placement, first.Rank, placementText(all[k-1]), k)
	}
	if u := s.url(); !strings.Contains(u, "at=50") {
		s.fail("address bar %q does not hold at=50", u)
	}
	s.do("clicking Next after the jump", chromedp.Click("#next"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", k+size, k+2*size-1, len(all)))
	s.do("clicking Previous", chromedp.Click("#prev"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", k, k+size-1, len(all)))

	// --- a jump past the end shows the last page and says so -------------------
	s.do("jumping to #1000", chromedp.Evaluate[chromedp.Void](`document.querySelector('#jump').value = ''`), chromedp.SendKeys("#jump", "1000"), chromedp.Click("#jump-form button"))
	lastPage := fmt.Sprintf("Solutions %d–%d of %d", len(all)-size+1, len(all), len(all))
	s.waitRange(lastPage)
	wantNote := fmt.Sprintf("There are only %d solutions of N = 8, so #1,000 is past the end: this is the last page.", len(all))
	s.waitText("#page-note", wantNote)
	if u := s.url(); !strings.Contains(u, "last=1") || strings.Contains(u, "at=") {
		s.fail("address bar %q after a jump past the end, want the last page (last=1)", u)
	}
	if got := s.cards(); got[len(got)-1].Placement != placementText(all[len(all)-1]) || got[len(got)-1].Rank != strconv.Itoa(len(all)) {
		s.fail("the last board after a jump past the end is %+v, want %s as #%d", got[len(got)-1], placementText(all[len(all)-1]), len(all))
	}
	s.noError("after a jump past the end")
	s.do("clicking Previous after the jump past the end", chromedp.Click("#prev"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", len(all)-2*size+1, len(all)-size, len(all)))
	s.wait("the note has gone", `document.querySelector('#page-note').hidden`)
	// The same from the address bar, before the page knows the total, and
	// for the unique listing.
	s.do("loading at=5000", chromedp.Navigate(api.Base+"/?n=8&at=5000"))
	s.waitRange(lastPage)
	s.waitText("#page-note", fmt.Sprintf("There are only %d solutions of N = 8, so #5,000 is past the end: this is the last page.", len(all)))
	s.noError("after at=5000")
	s.do("loading the unique listing at=13", chromedp.Navigate(api.Base+"/?n=8&mode=unique&at=13"))
	s.waitRange(fmt.Sprintf("Classes 1–%d of %d", ref[8].Unique, ref[8].Unique))
	s.waitText("#page-note", fmt.Sprintf("There are only %d unique solutions of N = 8, so #13 is past the end: this is the last page.", ref[8].Unique))
	s.noError("after a unique rank past the end")
	s.do("back to #50", chromedp.Navigate(api.Base+"/?n=8&mode=all&at=50"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", k, k+size-1, len(all)))

	// --- details of #50 --------------------------------------------------------
	p50 := all[k-1]
	s.do("opening the details of #50", chromedp.Click("#boards li:first-child .card"))
	s.wait("the details are open", `document.querySelector('#details').open && document.querySelector('#d-placement') !== null`)
	if got, want := s.text("#d-placement"), "["+strings.ReplaceAll(placementText(p50), ",", ", ")+"]"; got != want {
		s.fail("details placement %q, want %q", got, want)
	}
	if got := s.text("#d-chess"); got != p50.Chess() {
		s.fail("details chess notation %q, want %q", got, p50.Chess())
	}
	if got := s.text("#d-rows"); got != strings.Join(p50.Rows(), "\n") {
		s.fail("details rows %q, want %q", got, strings.Join(p50.Rows(), "\n"))
	}
	if got, want := s.text("#d-rank"), fmt.Sprintf("#%d of %d", k, len(all)); got != want {
		s.fail("details rank %q, want %q", got, want)
	}
	canon := solver.Canonical(p50)
	classText := s.text("#d-class")
	if solver.IsCanonical(p50) != strings.Contains(classText, "This is the canonical member") ||
		!solver.IsCanonical(p50) && !strings.Contains(classText, "["+strings.ReplaceAll(placementText(canon), ",", ", ")+"]") {
		s.fail("details class %q does not name the canonical member %v", classText, canon)
	}
	var names []string
	s.eval(`[...document.querySelectorAll('#d-images li')].map((li) => li.dataset.name)`, &names)
	var wantNames []string
	for _, im := range solver.Images(p50) {
		wantNames = append(wantNames, im.Symmetry.String())
	}
	if !slices.Equal(names, wantNames) {
		s.fail("details images %v, want %v", names, wantNames)
	}
	s.checkCaptionWords()
	if !strings.Contains(s.url(), "show=") {
		s.fail("address bar %q does not hold the open solution", s.url())
	}
	s.do("settling", chromedp.Sleep(200*time.Millisecond))
	s.screenshot("details")
	s.do("closing the details", chromedp.Click("#details-close"))
	s.wait("the details are closed", `!document.querySelector('#details').open && !location.search.includes('show=')`)

	// --- the try-it board marks conflicts as the queens go down -----------------
	s.do("scrolling to the validator", chromedp.ScrollIntoView("#validate-heading"))
	cols := []int{-1, -1, -1, -1, -1, -1, -1, -1}
	s.placeQueen(cols, 0, 0)
	var label string
	s.eval(`document.querySelector('#vboard [data-r="1"][data-c="0"]').getAttribute('aria-label')`, &label)
	if label != "a7, attacked" {
		s.fail("the square under the queen on a8 is labelled %q, want %q", label, "a7, attacked")
	}
	s.placeQueen(cols, 1, 1) // on the queen of a8's diagonal
	s.waitText("#vthreats", "Two queens attack each other: a8 and b7.")

	// --- "complete this board": impossible, then completed around a queen ------
	s.do("asking to complete a board whose queens attack each other", chromedp.Click("#vcomplete"))
	s.wait("the completion says it is impossible", `document.querySelector('#vcompletion').dataset.state === 'bad' && document.querySelector('#vcompletion-reason') !== null`)
	if got, want := s.text("#vcompletion-reason"), "the pinned queens at (row 0, col 0) and (row 1, col 1) attack each other"; got != want {
		s.fail("the completion's reason is %q, want %q", got, want)
	}
	s.waitMarks(cols)        // the board is left as it was
	s.placeQueen(cols, 1, 1) // taken away: only a8 is left
	s.wait("a change to the board clears the completion", `document.querySelector('#vcompletion').textContent === ''`)
	s.do("asking to complete the board around a8", chromedp.Click("#vcomplete"))
	s.wait("the board is completed and checked", `document.querySelector('#vcompletion').dataset.state === 'ok' && document.querySelector('#verdict').classList.contains('ok')`)
	if got, want := s.text("#vcompletion"), "Completed keeping your 1 queen."; got != want {
		s.fail("the completion says %q, want %q", got, want)
	}
	var completed []int
	s.eval(`[...document.querySelectorAll('#vboard .vrow')].map((row) => [...row.querySelectorAll('.sq')].findIndex((b) => b.classList.contains('queen')))`, &completed)
	if err := solver.ValidateN(8, completed); err != nil || completed[0] != 0 {
		s.fail("the completed board shows %v: want a solution with the queen on a8 (%v)", completed, err)
	}
	s.screenshot("complete")
	s.do("clearing the board", chromedp.Click("#vclear"))
	cols = []int{-1, -1, -1, -1, -1, -1, -1, -1}
	s.waitMarks(cols)

	// --- validate a wrong placement by clicking squares --------------------------
	wrong := all[0].Clone()
	wrong[len(wrong)-1] = (wrong[len(wrong)-1] + 1) % len(wrong)
	var conflict *solver.Conflict
	if err := solver.Validate(wrong); err == nil {
		t.Fatalf("%v should not be a solution", wrong)
	} else if c, ok := err.(*solver.Conflict); ok {
		conflict = c
	} else {
		t.Fatalf("validating %v: %v", wrong, err)
	}
	for r, c := range wrong {
		s.placeQueen(cols, r, c)
	}
	s.wait("the verdict says it is not a solution", `document.querySelector('#verdict').classList.contains('bad') && document.querySelector('#conflict-message') !== null`)
	if got := s.text("#conflict-message"); got != conflict.Error() {
		s.fail("conflict message %q, want the API's %q", got, conflict.Error())
	}
	var attacked [][2]int
	s.eval(`[...document.querySelectorAll('#vboard .sq.attack')].map((b) => [Number(b.dataset.r), Number(b.dataset.c)])`, &attacked)
	if want := [][2]int{{conflict.RowA, conflict.ColA}, {conflict.RowB, conflict.ColB}}; !slices.Equal(attacked, want) {
		s.fail("highlighted queens %v, want %v", attacked, want)
	}
	s.waitMarks(cols) // the live marks stay with the server's verdict
	s.screenshot("validate")
	// Moving the last queen back makes it a solution.
	last := len(wrong) - 1
	s.placeQueen(cols, last, all[0][last])
	s.wait("the verdict says it is a solution", `document.querySelector('#verdict').classList.contains('ok')`)

	// --- a solution on the board links to its rank, its class and its details ----
	// One that is not canonical, past the first page: every link leads
	// somewhere else.
	i := 60
	for solver.IsCanonical(all[i]) {
		i++
	}
	sol, canon := all[i], solver.Canonical(all[i])
	uniqueRank := 0
	for u := range solver.AllUnique(8) {
		uniqueRank++
		if u.Compare(canon) == 0 {
			break
		}
	}
	s.do("clearing the board", chromedp.Click("#vclear"))
	cols = []int{-1, -1, -1, -1, -1, -1, -1, -1}
	for r, c := range sol {
		s.placeQueen(cols, r, c)
	}
	s.wait("the verdict links to the rank", `document.querySelector('#verdict').classList.contains('ok') && document.querySelector('#v-rank') !== null`)
	if got, want := s.text("#v-rank"), fmt.Sprintf("solution #%d", i+1); got != want {
		s.fail("the rank link says %q, want %q", got, want)
	}
	if got, want := s.text("#v-canonical"), "["+strings.ReplaceAll(placementText(canon), ",", ", ")+"]"; got != want {
		s.fail("the class link names %q, want the canonical %q", got, want)
	}
	if got, want := s.text("#v-class"), fmt.Sprintf("unique solution #%d", uniqueRank); got != want {
		s.fail("the class link says %q, want %q", got, want)
	}
	s.screenshot("validate-solution")
	s.do("following the rank link", chromedp.Click("#v-rank"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d of %d", i+1, i+size, len(all)))
	if got := s.cards()[0]; got.Placement != placementText(sol) || got.Rank != strconv.Itoa(i+1) {
		s.fail("the rank link's page starts with %+v, want %s as #%d", got, placementText(sol), i+1)
	}
	if u := s.url(); !strings.Contains(u, fmt.Sprintf("at=%d", i+1)) || !strings.Contains(u, "mode=all") {
		s.fail("address bar %q after the rank link", u)
	}
	s.do("following the class link", chromedp.Click("#v-class"))
	s.waitRange(fmt.Sprintf("Classes %d–%d of %d", uniqueRank, min(uniqueRank+size-1, int(ref[8].Unique)), ref[8].Unique))
	if got := s.cards()[0]; got.Placement != placementText(canon) {
		s.fail("the class link's page starts with %s, want the canonical %s", got.Placement, placementText(canon))
	}
	s.do("following the details link", chromedp.Click("#v-details"))
	s.wait("the details are open", `document.querySelector('#details').open && document.querySelector('#d-placement') !== null`)
	if got, want := s.text("#d-placement"), "["+strings.ReplaceAll(placementText(sol), ",", ", ")+"]"; got != want {
		s.fail("the details link shows %q, want %q", got, want)
	}
	s.do("closing the details", chromedp.Click("#details-close"))
	s.wait("the details are closed", `!document.querySelector('#details').open && !location.search.includes('show=')`)

	// --- an error from the API is shown with its code ---------------------------
	s.do("loading a page after a cursor that is none", chromedp.Navigate(api.Base+"/?n=8&after=garbage"))
	s.wait("the error is shown", `!document.querySelector('#error').hidden && document.querySelector('#error .code')?.textContent === 'BAD_USER_INPUT'`)

	s.checkConsole()

	// The check above would have seen an error: an uncaught one is caught.
	s.do("throwing in the page", chromedp.Evaluate[chromedp.Void](`setTimeout(() => { throw new Error('probe: uncaught') }, 0)`))
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		caught := slices.ContainsFunc(s.problems, func(m string) bool { return strings.Contains(m, "probe: uncaught") })
		s.mu.Unlock()
		if caught {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an uncaught exception in the page was not reported: the console check sees nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestViewerUnstoredBoardInBrowser drives the viewer over boards that are
// not in the store, paged by the solver: ranks the server does not know
// past page 1, N ≥ 10 written as numbers, a board size the page cannot
// use in the address, and the try-it board where ranks are not known.
func TestViewerUnstoredBoardInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	st := sqlitetest.OpenTemp(t)
	api := apitest.Setup(t, func(c *server.Config) { c.Graph.Boards, c.Graph.Stored = st, st })
	api.Server.Handle("/", web.Handler())
	s := startBrowser(t, chromium, api.Base)
	const size = 12

	// --- N ≥ 12: the cards' placements wrap between numbers, evenly --------
	ref := oeis.MustLoad(t)
	for n := 12; n <= 14; n++ {
		s.do(fmt.Sprintf("loading N=%d", n), chromedp.Navigate(fmt.Sprintf("%s/?n=%d", api.Base, n)))
		s.waitRange(fmt.Sprintf("Solutions 1–%d of %s", size, group3(ref[n].Total)))
		s.checkPlacements(firstSolutions(n, size), 1)
		s.checkPlacementLines(fmt.Sprintf("N=%d", n))
	}

	// --- N=20: the server ranks none of its solutions; the page counts on ---
	first := firstSolutions(20, 3*size)
	s.do("loading N=20", chromedp.Navigate(api.Base+"/?n=20"))
	s.waitText("#state", "not stored")
	s.waitRange(fmt.Sprintf("Solutions 1–%d", size))
	s.checkPlacements(first[:size], 1)
	s.do("settling", chromedp.Sleep(300*time.Millisecond))
	s.checkPlacementLines("N=20")
	s.screenshot("n20")
	s.do("clicking Next", chromedp.Click("#next"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d", size+1, 2*size))
	s.checkPlacements(first[size:2*size], size+1)
	s.do("clicking Next", chromedp.Click("#next"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d", 2*size+1, 3*size))
	s.checkPlacements(first[2*size:], 2*size+1)
	s.do("reloading", chromedp.Reload())
	s.waitRange(fmt.Sprintf("Solutions %d–%d", 2*size+1, 3*size))
	s.checkPlacements(first[2*size:], 2*size+1)
	s.do("clicking Previous", chromedp.Click("#prev"))
	s.waitRange(fmt.Sprintf("Solutions %d–%d", size+1, 2*size))
	s.checkPlacements(first[size:2*size], size+1)
	s.do("going Back", chromedp.Evaluate[chromedp.Void](`history.back()`, chromedp.EvalIgnoreExceptions))
	s.waitRange(fmt.Sprintf("Solutions %d–%d", 2*size+1, 3*size))
	s.checkPlacements(first[2*size:], 2*size+1)
	// The details of a board carry the rank its page knows.
	s.do("opening the details of the first board", chromedp.Click("#boards li:first-child .card"))
	s.wait("the details are open", `document.querySelector('#details').open && document.querySelector('#d-rank') !== null`)
	if got, want := s.text("#d-rank"), fmt.Sprintf("#%d", 2*size+1); got != want {
		s.fail("details rank %q, want %q", got, want)
	}
	s.do("closing the details", chromedp.Click("#details-close"))
	s.wait("the details are closed", `!document.querySelector('#details').open && !location.search.includes('show=')`)

	// The same address, opened afresh (a link someone shared): the page
	// has not seen the pages before it, and each card says why it has no rank.
	link := s.url()
	s.do("opening the link afresh", chromedp.Navigate("about:blank"), chromedp.Navigate(api.Base+link))
	s.waitRange(fmt.Sprintf("%d boards on this page", size))
	s.checkPlacements(first[2*size:], 0)
	const unknown = "rank unknown: N=20 is not precomputed"
	var ranks []string
	s.wait("every card says why its rank is unknown", fmt.Sprintf(`[...document.querySelectorAll('#boards .card .rank')].every((e) => e.textContent === %q)`, unknown))
	s.eval(`[...document.querySelectorAll('#boards .card')].map((b) => b.getAttribute('aria-label'))`, &ranks)
	for _, label := range ranks {
		if !strings.Contains(label, unknown) {
			s.fail("a card's label %q does not say %q", label, unknown)
		}
	}
	s.screenshot("n20-rank-unknown")

	// --- the try-it board: a solution of N=20 whose rank is not known ---------
	s.do("scrolling to the validator", chromedp.ScrollIntoView("#validate-heading"))
	cols := make([]int, 20)
	for i := range cols {
		cols[i] = -1
	}
	for r, c := range first[5] {
		s.placeQueen(cols, r, c)
	}
	s.wait("the verdict says it is a solution", `document.querySelector('#verdict').classList.contains('ok') && document.querySelector('#v-rank-unknown') !== null`)
	if got, want := s.text("#v-rank-unknown"), "Its rank is unknown: N=20 is not precomputed."; got != want {
		s.fail("the verdict says %q, want %q", got, want)
	}
	s.do("following the details link", chromedp.Click("#v-details"))
	s.wait("the details are open", `document.querySelector('#details').open && document.querySelector('#d-placement') !== null`)
	if got, want := s.text("#d-placement"), "["+strings.ReplaceAll(placementText(first[5]), ",", ", ")+"]"; got != want {
		s.fail("the details link shows %q, want %q", got, want)
	}
	s.do("closing the details", chromedp.Click("#details-close"))
	s.wait("the details are closed", `!document.querySelector('#details').open && !location.search.includes('show=')`)

	// --- a board size the page cannot use falls back to N=8 and says so ------
	for _, c := range []struct{ query, says string }{
		{"n=0", `n=“0” is not a board size: N is a whole number from 1 to 32. Showing N = 8 instead.`},
		{"n=40", `n=“40” is not a board size: N is a whole number from 1 to 32. Showing N = 8 instead.`},
		{"n=abc", `n=“abc” is not a board size: N is a whole number from 1 to 32. Showing N = 8 instead.`},
		{"n=", `n is empty: N is a whole number from 1 to 32. Showing N = 8 instead.`},
		{"n=8&mode=odd&size=7", `mode=“odd” is not a listing: it is all or unique. Showing all solutions. size=“7” is not a page size: it is 6, 12, 24 or 48. Showing 12 boards per page.`},
		// A parameter the page does not know is not ignored silently.
		{"n=8&unique=1", `“unique” is not a setting of this page, ignored: the address takes n, mode, size, where, after, before, last, at and show (for one solution per symmetry class: mode=unique).`},
		{"n=8&page=2&sort=x&page=3", `“page”, “sort” are not settings of this page, ignored: the address takes n, mode, size, where, after, before, last, at and show.`},
	} {
		s.do("loading /?"+c.query, chromedp.Navigate(api.Base+"/?"+c.query))
		s.waitText("#summary-n", "8")
		s.waitRange(fmt.Sprintf("Solutions 1–%d of 92", size)) // counted and ranked on the spot
		s.waitText("#notice .msg", c.says)
		s.noError("/?" + c.query)
		if u := s.url(); u != "/?n=8&mode=all" {
			s.fail("/?%s: address bar %q, want /?n=8&mode=all", c.query, u)
		}
		if sel := s.text("#n option:checked"); sel != "8" {
			s.fail("/?%s: the N menu shows %q, want 8", c.query, sel)
		}
	}
	s.screenshot("bad-address")
	// Picking a board puts the notice away.
	s.do("picking N=6", chromedp.SetValue("#n", "6"), chromedp.Click("#show"))
	s.waitRange("Solutions 1–4 of 4")
	s.wait("the notice has gone", `document.querySelector('#notice').hidden`)

	s.checkConsole()
}

// checkPlacementLines: each card's placement (what, e.g. "N=20") wraps
// only between numbers, and into lines of more than one number: a number
// is never cut, nor left alone on a line of its own.
func (s *session) checkPlacementLines(what string) {
	s.t.Helper()
	var cards []struct {
		Text   string
		Broken []string
		Lines  []int // numbers on each line, top to bottom
	}
	s.eval(`[...document.querySelectorAll('#boards .card .placement')].map((code) => {
		const node = code.firstChild, text = node.textContent, broken = [], lines = new Map();
		let at = 0;
		for (const num of text.split(' ')) {
			const r = document.createRange();
			r.setStart(node, at);
			r.setEnd(node, at + num.length);
			at += num.length + 1;
			const rects = [...r.getClientRects()];
			if (rects.length !== 1) broken.push(num);
			const top = Math.round(rects[0].top);
			lines.set(top, (lines.get(top) || 0) + 1);
		}
		return { text, broken, lines: [...lines.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]) };
	})`, &cards)
	if len(cards) == 0 {
		s.fail("%s: no card shows a placement", what)
	}
	for _, c := range cards {
		if len(c.Broken) > 0 {
			s.fail("%s: placement %q cuts the numbers %v across lines", what, c.Text, c.Broken)
		}
		if len(c.Lines) > 1 && slices.Contains(c.Lines, 1) {
			s.fail("%s: placement %q wraps into lines of %v numbers: one number alone on a line", what, c.Text, c.Lines)
		}
	}
}

// checkCaptionWords: the details' symmetry captions (reflectAntiDiagonal)
// wrap between their words, never inside one (reflectVertic|al).
func (s *session) checkCaptionWords() {
	s.t.Helper()
	var captions []struct {
		Name  string
		Split []string // words laid out on more than one line
	}
	s.eval(`[...document.querySelectorAll('#d-images .image-name')].map((cap) => ({
		name: cap.textContent,
		split: [...cap.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).filter((n) => {
			const r = document.createRange();
			r.selectNodeContents(n);
			return r.getClientRects().length !== 1;
		}).map((n) => n.textContent),
	}))`, &captions)
	if len(captions) != 8 {
		s.fail("the details show %d symmetry captions, want 8", len(captions))
	}
	for _, c := range captions {
		if len(c.Split) > 0 {
			s.fail("caption %q breaks inside the words %v", c.Name, c.Split)
		}
	}
}
