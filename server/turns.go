package server

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
)

// Heavy answers take turns. An operation whose pricing holds at least
// heavyAnswerBytes (an answer of about 200 kB and more: a page of hundreds
// of pictures, introspection of the whole schema, completions of large
// boards) computes it only in a turn: one at a time per client,
// Config.AnswerSlots at once in all (half the cores by default), clients
// holding none served first (quota.LightestFirst). Computing such an
// answer keeps a core busy for tens of milliseconds and makes thousands of
// values; without turns, as many run at once as the memory budget admits,
// and every other request waits behind them for the scheduler. A turn not
// had within AdmissionWait is refused like memory: 429 when the client
// computes one already, 503 when all slots are busy.
const heavyAnswerBytes = 1 << 20

// turnKey is the context key of a request's admission, which says what
// its pricing held.
type turnKey struct{}

// inTurn runs an operation's answer h in a turn when it is heavy; a
// request refused a turn gets the refusal as its answer.
func (s *Server) inTurn(h graphql.ResponseHandler) graphql.ResponseHandler {
	return func(ctx context.Context) *graphql.Response {
		a, _ := ctx.Value(turnKey{}).(*admission)
		if a == nil || a.grown.Load() < heavyAnswerBytes {
			return h(ctx)
		}
		turn, err := s.answers.Wait(ctx, clientOf(ctx), 1, s.cfg.AdmissionWait)
		if err != nil {
			var refusal *quota.Refusal
			if !errors.As(err, &refusal) {
				return h(ctx) // not a refusal: cannot happen with Wait
			}
			return &graphql.Response{Errors: gqlerror.List{s.present(ctx, apierror.Refused(refusal))}}
		}
		defer turn.Release()
		return h(ctx)
	}
}
