package precompute

import "testing"

// TestPlanKeepsRequester: a board job's plan carries the requester of its
// args, so that a board job that makes the board's row (no request made
// it first) records who asked, whichever way the board is kept.
func TestPlanKeepsRequester(t *testing.T) {
	t.Parallel()
	for _, stores := range []bool{true, false} {
		a := BoardArgs{N: 17, StoreSolutions: stores, RequestedBy: "cron"}
		if p := plan(a); p.RequestedBy != a.RequestedBy || p.StoresSolutions != stores {
			t.Errorf("plan(%+v) = %+v; want requested by %q", a, p, a.RequestedBy)
		}
	}
}
