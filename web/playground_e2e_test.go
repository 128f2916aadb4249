package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/oeis"
)

// requestLog records the requests of a tab, above all those outside the
// test server's origin. Every such HTTP request is failed before it leaves
// (Fetch interception); websockets, which Fetch does not see, are recorded
// from the Network domain, and the browser resolves no host name but the
// server's address anyway (--host-resolver-rules).
type requestLog struct {
	mu        sync.Mutex
	offOrigin []string // blocked, or websockets elsewhere
	all       []string // every URL requested, for the failure messages
	sockets   []string // the websockets opened
}

func (o *requestLog) add(list *[]string, u string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	*list = append(*list, u)
}

func (o *requestLog) snapshot() (offOrigin, all, sockets []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.offOrigin), slices.Clone(o.all), slices.Clone(o.sockets)
}

// guard blocks and records every request of the tab that does not go to
// origin (http://127.0.0.1:port). It must run before the page loads.
func guard(t *testing.T, tabCtx context.Context, origin string) *requestLog {
	t.Helper()
	base, err := url.Parse(origin)
	if err != nil {
		t.Fatal(err)
	}
	sameOrigin := func(raw string) bool {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		switch u.Scheme {
		case "http", "ws":
			return u.Host == base.Host
		case "data":
			return true // inline in a stylesheet of the page: nothing is fetched
		}
		return false
	}
	o := &requestLog{}
	paused := chromedp.Events(tabCtx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if sameOrigin(ev.Request.URL) {
				_, err = chromedp.Call(tabCtx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				o.add(&o.offOrigin, ev.Request.URL)
				_, err = chromedp.Call(tabCtx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
			// A request the page cancelled while it was paused (a newer one
			// took its place) has no interception left to answer.
			if err != nil && tabCtx.Err() == nil && !strings.Contains(err.Error(), "Invalid InterceptionId") {
				t.Errorf("answering the paused request %s: %v", ev.Request.URL, err)
			}
		}
	}()
	// Listen, unlike Events, sees each event before the reply to any
	// command the browser answers after it: what the page shows has been
	// recorded by the time a check reads it.
	err = chromedp.Listen(tabCtx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventWebSocketCreated:
			o.add(&o.sockets, ev.URL)
			if !sameOrigin(ev.URL) {
				o.add(&o.offOrigin, ev.URL)
			}
		case *network.EventRequestWillBeSent:
			o.add(&o.all, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tabCtx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tabCtx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		t.Fatal(err)
	}
	return o
}

// cspWatch collects the page's Content-Security-Policy violations in
// window.cspViolations, from before its first script runs.
const cspWatch = `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
	window.cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' (' + e.sourceFile + ':' + e.lineNumber + ')');
});`

// responseOf reads GraphiQL's result pane (a CodeMirror editor).
const responseOf = `document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror.getValue() ?? ''`

func TestPlaygroundInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	ref := oeis.MustLoad(t)
	ctx := t.Context()

	// The API with no store: counts and pages come from the solver, and
	// boardProgress sends the board once and ends.
	api := apitest.Setup(t)

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// No host name resolves, and nothing but the test server's
		// address is reachable: a request the interception missed fails.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	)
	defer cancelAlloc()
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	// The first action starts the browser, which lives as long as that
	// action's context: run it on the tab's own.
	if err := chromedp.Do(tabCtx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}

	shotDir := os.Getenv("NQUEENS_SCREENSHOT_DIR")
	if shotDir == "" {
		shotDir = t.TempDir()
	} else if err := os.MkdirAll(shotDir, 0o755); err != nil {
		t.Fatal(err)
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
	requests := guard(t, tabCtx, api.Base)
	if _, err := chromedp.Call(tabCtx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}

	// --- GraphiQL renders, with the examples in tabs -------------------------
	s.do("loading /playground", chromedp.Navigate(api.Base+"/playground"))
	s.wait("GraphiQL renders", `document.querySelector('.graphiql-container .graphiql-query-editor .CodeMirror') !== null`)
	var tabs []string
	s.eval(`[...document.querySelectorAll('.graphiql-tab .graphiql-tab-button')].map((t) => t.textContent.trim())`, &tabs)
	wantTabs := []string{"Count", "SolutionsPage", "UniqueClasses", "SolverPageN20", "Validate", "BoardProgress", "Complete", "Where", "SquareCounts"}
	if !slices.Equal(tabs, wantTabs) {
		s.fail("tabs %q, want the examples %q", tabs, wantTabs)
	}
	// The first example is on screen: none of its lines runs past the
	// editor's right edge.
	var overflowing []string
	s.eval(`(() => {
		const box = document.querySelector('.graphiql-query-editor .CodeMirror').getBoundingClientRect();
		return [...document.querySelectorAll('.graphiql-query-editor .CodeMirror-line > span')]
			.filter((line) => line.getBoundingClientRect().right > box.right)
			.map((line) => line.textContent);
	})()`, &overflowing)
	if len(overflowing) > 0 {
		s.fail("the first example's lines run past the editor's edge: %q", overflowing)
	}
	s.screenshot("playground")

	// --- the first example runs ---------------------------------------------
	s.do("running the Count tab", chromedp.Click(".graphiql-execute-button"))
	s.wait("the Count example answers", fmt.Sprintf(`(%[1]s).includes('"total": "%[2]d"') && (%[1]s).includes('"unique": "%[3]d"')`,
		responseOf, ref[8].Total, ref[8].Unique))

	// --- a typed query runs ----------------------------------------------------
	s.do("opening a new tab", chromedp.Click(".graphiql-tab-add"))
	s.wait("the new tab is open", fmt.Sprintf(`document.querySelectorAll('.graphiql-tab').length === %d`, len(wantTabs)+1))
	s.do("typing a query",
		chromedp.Click(".graphiql-query-editor .CodeMirror-lines"),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: "query Last { solutionAt(n: 8, rank: 92) { rank placement } }"})
			return err
		}),
	)
	// Run at once: GraphiQL would still hold the previous tab's operation
	// name, which the page replaces (playground.js).
	s.do("running the typed query", chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	s.wait("the typed query answers", fmt.Sprintf(`(%s).includes('"rank": "%d"')`, responseOf, ref[8].Total))

	// --- the docs explorer opens on the schema ----------------------------------
	s.do("opening the docs", chromedp.Click(`button[aria-label="Show Documentation Explorer"]`))
	s.wait("the docs show the root types", `document.querySelector('.graphiql-doc-explorer')?.textContent.includes('Root Types')`)
	s.do("opening Query", chromedp.Click(`.graphiql-doc-explorer a.graphiql-doc-explorer-type-name`))
	s.wait("the docs show Query's fields with their descriptions",
		`document.querySelector('.graphiql-doc-explorer')?.textContent.includes('The counts of N, the cheap question')`)
	s.screenshot("docs")

	// --- the explorer plugin lists the fields -------------------------------------
	s.do("opening the explorer", chromedp.Click(`button[aria-label="Show GraphiQL Explorer"]`))
	s.wait("the explorer lists Query's fields", `document.querySelector('.graphiql-explorer-root')?.textContent.includes('uniqueSolutions')`)

	// --- the subscription example yields an event over the websocket -------------
	s.do("picking the BoardProgress tab", chromedp.Click(`.graphiql-tab-button[title="BoardProgress"]`))
	s.wait("the BoardProgress tab is active", `document.querySelector('.graphiql-tab-active .graphiql-tab-button')?.textContent === 'BoardProgress'`)
	s.do("running the subscription", chromedp.Click(".graphiql-execute-button"))
	s.wait("the subscription sends the board", fmt.Sprintf(`(%[1]s).includes('"boardProgress"') && (%[1]s).includes('"n": 8')`, responseOf))
	s.screenshot("subscription")

	// --- a dialog opens: GraphiQL adds its inline style with the page's nonce --
	s.do("opening the settings", chromedp.Click(`button[aria-label="Open settings dialog"]`))
	s.wait("the settings dialog is open", `document.querySelector('[role="dialog"]')?.textContent.includes('Clear storage')`)
	s.wait("GraphiQL's style is in", `[...document.querySelectorAll('style')].some((e) => e.nonce !== '' && e.sheet !== null)`)
	s.do("closing the settings", chromedp.KeyEvent(kb.Escape))
	s.wait("the settings dialog is closed", `document.querySelector('[role="dialog"]') === null`)

	// --- nothing left the origin, nothing broke --------------------------------
	off, seen, sockets := requests.snapshot()
	if len(off) > 0 {
		t.Errorf("the page requested outside %s: %q", api.Base, off)
	}
	wsURL := "ws" + strings.TrimPrefix(api.Base, "http") + "/graphql"
	if !slices.Contains(sockets, wsURL) {
		t.Errorf("no websocket to %s; sockets: %q", wsURL, sockets)
	}
	for _, want := range []string{"/playground", "/playground/assets/graphiql/graphiql.min.js", "/graphql"} {
		if !slices.ContainsFunc(seen, func(u string) bool { return strings.HasPrefix(u, api.Base+want) }) {
			t.Errorf("no request for %s; requests: %q", want, seen)
		}
	}
	var violations []string
	s.eval(`window.cspViolations`, &violations)
	if len(violations) > 0 {
		t.Errorf("Content-Security-Policy violations: %q", violations)
	}
	s.mu.Lock()
	if len(s.problems) > 0 {
		t.Errorf("the page wrote errors to the console:\n  %s", strings.Join(s.problems, "\n  "))
	}
	s.mu.Unlock()

	// The checks above would have seen a violation and a request to
	// elsewhere: an inline style is refused and reported …
	s.do("adding an inline style", chromedp.Evaluate[chromedp.Void](`document.head.append(Object.assign(document.createElement('style'), {textContent: 'body { color: red }'}))`))
	s.wait("the inline style is reported", `window.cspViolations.some((v) => v.startsWith('style-src'))`)
	// … and a navigation elsewhere is blocked and recorded.
	_ = chromedp.Do(tabCtx, chromedp.Navigate("http://elsewhere.example/probe"))
	if off, _, _ := requests.snapshot(); !slices.Contains(off, "http://elsewhere.example/probe") {
		t.Errorf("a navigation to another origin was not recorded: %q", off)
	}
}
