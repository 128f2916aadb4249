package server

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/internal/quota"
)

// requestOverhead is what a request holds besides its body and its
// answer: its goroutine's stack, its decoded parameters, the buffers of
// its answer.
const requestOverhead = 16 << 10

// admit accounts the memory a request will hold against its client's
// share and the server's budget for requests in flight (Config.
// InflightBytes): its body (as Content-Length announces it, or the most a
// body may be) and its overhead, waiting up to AdmissionWait for room. The
// request's pricing grows the hold by its document and its answer
// (answerPricer); the caller releases it once the answer is
// written.
func (s *Server) admit(r *http.Request, client string) (*quota.Hold, error) {
	body := int64(len(r.URL.RawQuery))
	if r.Method == http.MethodPost {
		body = s.cfg.MaxBodyBytes
		if r.ContentLength >= 0 {
			body = min(r.ContentLength, s.cfg.MaxBodyBytes)
		}
	}
	return s.memory.Wait(r.Context(), client, requestOverhead+body, s.cfg.AdmissionWait)
}

// admission is a request's hold as its pricing grows it (answerPricer): each growth waits for room up to AdmissionWait, as the
// request's admission did. grown is what its pricing held (turns.go).
type admission struct {
	hold  *quota.Hold
	wait  time.Duration
	grown atomic.Int64
}

// withAdmission returns ctx carrying hold as the operation's admission:
// its pricing grows it (answerPricer), and its turn for a heavy
// answer reads it (turns.go).
func (s *Server) withAdmission(ctx context.Context, hold *quota.Hold) context.Context {
	adm := &admission{hold: hold, wait: s.cfg.AdmissionWait}
	return context.WithValue(ctx, turnKey{}, adm)
}

func (a *admission) Grow(ctx context.Context, n int64) error {
	if err := a.hold.Grow(ctx, n, a.wait); err != nil {
		return err
	}
	a.grown.Add(n)
	return nil
}
