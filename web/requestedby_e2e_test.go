package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
	"github.com/nqueens/nqueens/web"
)

// requestsOnly is a precompute engine that records requests in the store
// and queues no work: the board stays pending, as it does until a worker
// takes it.
type requestsOnly struct{ st storetest.Writes }

func (r requestsOnly) Precompute(ctx context.Context, req store.BoardRequest, _ *bool) (store.Board, error) {
	b, _, err := r.st.RequestBoard(ctx, req)
	return b, err
}

func (r requestsOnly) PrecomputeCount(context.Context, int, solver.Filter) (store.FilteredCount, error) {
	return store.FilteredCount{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "this test queues no work")
}

// TestViewerRequestedByInBrowser: the board panel says who asked for a
// board when that is known, and nothing when not; the precompute form
// sends the name typed in it, which the page then shows as text.
func TestViewerRequestedByInBrowser(t *testing.T) {
	chromium := findBrowser(t)
	ctx := t.Context()
	st := sqlitetest.OpenTemp(t)
	if _, _, err := st.PlanBoard(ctx, store.BoardPlan{N: 9, ChunkDepth: 2, StoresSolutions: true,
		SolverVersion: storetest.SolverVersion, RequestedBy: "Ada Lovelace"}, nil); err != nil {
		t.Fatal(err)
	}
	const token = "viewer-token"
	api := apitest.Setup(t, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
		c.Graph.Precompute, c.Graph.AdminToken = requestsOnly{storetest.WritesOf(t, st)}, token
	})
	api.Server.Handle("/", web.Handler())
	s := startBrowser(t, chromium, api.Base)

	s.do("loading N=9", chromedp.Navigate(api.Base+"/?n=9"))
	s.waitText("#state", "computing")
	s.wait("the requester is shown", `!document.querySelector('#requested-by').hidden`)
	s.waitText("#requested-by", "requested by Ada Lovelace")

	// N=11: not asked for; asked for from the form, with a name that is
	// markup, which must show as the text it is.
	const name = "Grace <b>Hopper</b>"
	s.do("loading N=11", chromedp.Navigate(api.Base+"/?n=11"))
	s.waitText("#state", "not stored")
	s.wait("no requester is shown", `document.querySelector('#requested-by').hidden`)
	s.do("asking for N=11",
		chromedp.Click("#precompute-box summary"),
		chromedp.SetValue("#token", token),
		chromedp.SetValue("#requester", "  "+name+" "),
		chromedp.Click("#precompute-form button[type=submit]"))
	s.waitText("#state", "pending")
	s.waitText("#requested-by", "requested by "+name)
	s.wait("the name is not markup", `document.querySelector('#requested-by b') === null`)
	if b, err := st.Board(ctx, 11); err != nil || b.RequestedBy != name {
		t.Errorf("N=11 after the form: %+v, %v; want requested by %q (trimmed)", b, err, name)
	}
	s.checkConsole()
}
