package server

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/nqueens/nqueens/internal/apierror"
	"golang.org/x/time/rate"
)

// rateLimitClients bounds how many clients the limiter remembers: past it
// the one seen least recently is forgotten, and starts again with a full
// burst when it comes back. A token bucket is about 100 bytes.
const rateLimitClients = 10000

// rateLimiter is a token bucket per client (clientKey).
type rateLimiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex // makes get-or-create one step
	clients *lru.Cache[string, *rate.Limiter]

	refused atomic.Int64 // requests refused, since the server started
}

func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	clients, err := lru.New[string, *rate.Limiter](rateLimitClients)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &rateLimiter{limit: rate.Limit(perSecond), burst: burst, clients: clients}
}

// allow takes a token from the client's bucket; without one it returns
// how long until the next.
func (l *rateLimiter) allow(client string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	lim, found := l.clients.Get(client)
	if !found {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.clients.Add(client, lim)
	}
	l.mu.Unlock()

	now := time.Now()
	res := lim.ReserveN(now, 1)
	if delay := res.DelayFrom(now); delay > 0 {
		res.CancelAt(now)
		l.refused.Add(1)
		return false, delay
	}
	return true, 0
}

// refusal is the error of a request over its client's limit; what names
// the requests ("requests", "operations").
func (l *rateLimiter) refusal(retryAfter time.Duration, what string) *apierror.Error {
	return &apierror.Error{Code: apierror.RateLimited, RetryAfter: retryAfter, Message: fmt.Sprintf(
		"too many %s from your address: the limit is %g a second (bursts of %d); retry in %d s",
		what, float64(l.limit), l.burst, apierror.RetryAfterSeconds(retryAfter))}
}

// RateLimited is how many requests and websocket operations the rate
// limit has refused since the server started (for metrics).
func (s *Server) RateLimited() int64 {
	if s.limiter == nil {
		return 0
	}
	return s.limiter.refused.Load()
}

// refuseRateLimited answers a request over its client's limit: 429 with
// Retry-After (whole seconds, at least 1) and a GraphQL error body.
func (s *Server) refuseRateLimited(w http.ResponseWriter, r *http.Request, retryAfter time.Duration) {
	e := s.limiter.refusal(retryAfter, "requests")
	w.Header().Set("Retry-After", strconv.Itoa(apierror.RetryAfterSeconds(retryAfter)))
	s.fail(w, r, http.StatusTooManyRequests, e.Code, e.Reason, e.Message)
}
