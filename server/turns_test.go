package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
)

// TestHeavyAnswersTakeTurns: while a client's heavy answer is computed
// (a page of pictures priced past a megabyte, beside searches that take
// two seconds), its next heavy request waits for its turn and is refused 429
// ANSWERS_PER_CLIENT; another client's heavy request, with one slot, 503
// ANSWERS_TOTAL; both with Retry-After. A light request of either client
// is answered meanwhile.
func TestHeavyAnswersTakeTurns(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t, func(c *server.Config) { c.AnswerSlots, c.AdmissionWait = 1, 300*time.Millisecond })
	slow := apitest.Request{Query: `{ solutions(n: 10, first: 400) { nodes { svg } } ` + heavyAliases(8, true)[1:]}
	heavy := apitest.Request{Query: "{ solutions(n: 10, first: 400) { nodes { rows svg } } }"}
	light := apitest.Request{Query: "{ count(n: 8) { total } }"}

	first := make(chan *apitest.Response, 1)
	go func() { first <- b.Post(t, slow) }()
	pool := poolNamed(t, b, apierror.PoolAnswers)
	for deadline := time.Now().Add(10 * time.Second); pool.Held() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow heavy request never took its turn")
		}
	}
	check := func(what string, r *apitest.Response, status int, reason string) {
		t.Helper()
		if r.Status != status || r.Reason() != reason || (status != http.StatusOK && r.Header.Get("Retry-After") == "") {
			t.Errorf("%s: status %d, reason %q, Retry-After %q; want %d %s: %.300s", what, r.Status, r.Reason(), r.Header.Get("Retry-After"), status, reason, r.Raw)
		}
	}
	check("the same client's next heavy request", b.Post(t, heavy), http.StatusTooManyRequests, "ANSWERS_PER_CLIENT")
	check("another client's heavy request", from(t, b, "127.0.0.2").Post(t, heavy), http.StatusServiceUnavailable, "ANSWERS_TOTAL")
	check("the same client's light request", b.Post(t, light), http.StatusOK, "")
	check("another client's light request", from(t, b, "127.0.0.2").Post(t, light), http.StatusOK, "")
	// Its searches may use up its solver time on a busy machine: what
	// matters is that it held its turn meanwhile.
	if r := <-first; r.Status != http.StatusOK || len(r.Data) == 0 || len(r.Errors) > 0 && r.Code() != "TIMEOUT" {
		t.Fatalf("the slow heavy request: %d %.300s", r.Status, r.Raw)
	}
	check("a heavy request once the turn is free", from(t, b, "127.0.0.2").Post(t, heavy), http.StatusOK, "")
}
