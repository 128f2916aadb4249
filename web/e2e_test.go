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

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/graphstore"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite"
	"github.com/nqueens/nqueens/store/storetest"
	"github.com/nqueens/nqueens/web"
)

// The end-to-end test drives headless Chromium against the real server
// (graph + server + this package) over a real SQLite store, plugged in
// through internal/graphstore as the service does and filled through the
// store's write path (PlanBoard, WriteChunk, FinishBoard).
//
// Environment:
//
//	NQUEENS_CHROMIUM         the browser binary, and no other (default: chromium on PATH, /usr/bin/chromium)
//	NQUEENS_REQUIRE_BROWSER  1: fail, not skip, when there is no browser (as does CI=true)
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
	msg := fmt.Sprintf("no Chromium found (tried %s); install Debian's: apt-get install -y chromium", strings.Join(cands, ", "))
	if os.Getenv("CI") == "true" || os.Getenv("NQUEENS_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg + " (required here: CI=true or NQUEENS_REQUIRE_BROWSER=1)")
	}
	t.Skip(msg)
	return ""
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

// wait polls a JavaScript predicate until it holds.
func (s *session) wait(what, predicate string) {
	s.t.Helper()
	if _, err := chromedp.Run(s.ctx, chromedp.Poll[chromedp.Void](predicate,
		chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
		s.fail("waiting until %s (%s): %v", what, predicate, err)
	}
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

func TestViewerInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	ref := oeis.MustLoad(t)
	ctx := t.Context()

	// A real store: SQLite in a temporary directory. N=8 is done; N=10 is
	// half written, so that the page follows its progress live.
	st, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(t.TempDir(), "nqueens.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storetest.Load(ctx, t, st, 8, solver.DefaultChunkDepth(8))
	depth10 := solver.DefaultChunkDepth(10)
	chunks10, err := solver.Chunks(10, depth10)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.PlanBoard(ctx, store.BoardPlan{N: 10, ChunkDepth: depth10, StoresSolutions: true, SolverVersion: storetest.SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	half := len(chunks10) / 2
	for _, c := range chunks10[:half] {
		if _, err := st.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, nil); err != nil {
			t.Fatal(err)
		}
	}

	src := graphstore.New(st)
	api := apitest.Setup(t, server.Config{Graph: graph.Options{Boards: src, Stored: src, PollInterval: 100 * time.Millisecond}})
	api.Server.Handle("/", web.Handler())

	shotDir := os.Getenv("NQUEENS_SCREENSHOT_DIR")
	if shotDir == "" {
		shotDir = t.TempDir()
	} else if err := os.MkdirAll(shotDir, 0o755); err != nil {
		t.Fatal(err)
	}

	// The flags keep Chromium off the network: this machine has none but
	// loopback, and Chromium's background lookups would only fail.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
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
	defer cancelAlloc()
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	// The first action starts the browser, which lives as long as that
	// action's context: run it on the tab's own.
	if err := chromedp.Do(tabCtx, chromedp.EmulateViewport(1280, 940)); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}

	s := &session{t: t, ctx: tabCtx, base: api.Base, shotDir: shotDir}
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
	s.wait("the progress bar shows", `!document.querySelector('#progress-box').hidden && document.querySelector('#progress').value > 0`)
	s.screenshot("progress")
	wantChunks := fmt.Sprintf("%d of %d chunks", half, len(chunks10))
	if got := s.text("#progress-text"); !strings.Contains(got, wantChunks) {
		s.fail("progress text %q does not say %q", got, wantChunks)
	}
	for _, c := range chunks10[half:] {
		if _, err := st.WriteChunk(ctx, store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.FinishBoard(ctx, 10); err != nil {
		t.Fatal(err)
	}
	s.waitText("#state", "done") // pushed over the websocket
	s.waitText("#total", group3(ref[10].Total))
	s.wait("the time it took is shown", `document.querySelector('#took').textContent.includes('precomputed in')`)

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
	if !strings.Contains(s.url(), "show=") {
		s.fail("address bar %q does not hold the open solution", s.url())
	}
	s.do("settling", chromedp.Sleep(200*time.Millisecond))
	s.screenshot("details")
	s.do("closing the details", chromedp.Click("#details-close"))
	s.wait("the details are closed", `!document.querySelector('#details').open && !location.search.includes('show=')`)

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
	s.do("scrolling to the validator", chromedp.ScrollIntoView("#validate-heading"))
	for r, c := range wrong {
		s.do(fmt.Sprintf("clicking row %d column %d", r, c), chromedp.Click(fmt.Sprintf(`#vboard [data-r="%d"][data-c="%d"]`, r, c)))
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
	s.screenshot("validate")
	// Moving the last queen back makes it a solution.
	last := len(wrong) - 1
	s.do("fixing the last row", chromedp.Click(fmt.Sprintf(`#vboard [data-r="%d"][data-c="%d"]`, last, all[0][last])))
	s.wait("the verdict says it is a solution", `document.querySelector('#verdict').classList.contains('ok')`)

	// --- an error from the API is shown with its code ---------------------------
	s.do("loading N=40", chromedp.Navigate(api.Base+"/?n=40"))
	s.wait("the error is shown", `!document.querySelector('#error').hidden && document.querySelector('#error .code')?.textContent === 'BAD_USER_INPUT'`)

	s.mu.Lock()
	if len(s.problems) > 0 {
		t.Fatalf("the page wrote errors to the console:\n  %s", strings.Join(s.problems, "\n  "))
	}
	s.mu.Unlock()

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
