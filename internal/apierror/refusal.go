package apierror

import (
	"fmt"
	"strings"
	"time"

	"github.com/nqueens/nqueens/internal/quota"
)

// What the server shares between clients (quota.Pool names), as a
// refusal names them, and when a refused client may try again.
const (
	PoolConnections = "connections"
	PoolWebsockets  = "websockets"
	PoolStreams     = "streams"
	PoolExports     = "exports"
	PoolMemory      = "memory"
	PoolSolver      = "solver"
	PoolAnswers     = "answers"
	// PoolCompressors never refuses: without a compressor an answer goes
	// uncompressed.
	PoolCompressors = "compressors"
)

var poolWords = map[string]struct {
	held  string // "%d <held>": what a client holds of the pool
	retry time.Duration
}{
	PoolConnections: {"connections open", time.Second},
	PoolWebsockets:  {"websockets open", 5 * time.Second},
	PoolStreams:     {"event streams open", 5 * time.Second},
	PoolExports:     {"exports running", 10 * time.Second},
	PoolSolver:      {"searches waiting for the solver or running on it", time.Second},
	PoolAnswers:     {"heavy answers being computed", time.Second},
}

// Refused is the API's error for a request a quota.Pool refused: when the
// client holds its share, RATE_LIMITED (HTTP 429: other clients are
// served); when the server's total is in use, UNAVAILABLE (503); when the
// request alone asks for more than a client's share, BAD_USER_INPUT (it
// can never fit). The reason is the pool and the bound, e.g.
// EXPORTS_PER_CLIENT or MEMORY_TOTAL.
func Refused(r *quota.Refusal) *Error {
	pool := strings.ToUpper(r.Pool)
	if r.Pool == PoolMemory {
		return memoryRefused(r, pool)
	}
	words, ok := poolWords[r.Pool]
	if !ok {
		words.held, words.retry = r.Pool+" held", time.Second
	}
	secs := RetryAfterSeconds(words.retry)
	if r.Scope == quota.Share {
		return &Error{Code: RateLimited, Reason: pool + "_PER_CLIENT", RetryAfter: words.retry, Message: fmt.Sprintf(
			"your address has %d %s, as many as one client may have at once; retry in %d s, or once one of them ends", r.Share, words.held, secs)}
	}
	return &Error{Code: Unavailable, Reason: pool + "_TOTAL", RetryAfter: words.retry, Message: fmt.Sprintf(
		"the server has %d %s, as many as it has at once for all clients; retry in %d s", r.Total, words.held, secs)}
}

// ReasonMemoryPerRequest is the reason of a request that alone would hold
// more memory than a client's share: it can never be answered as it is.
const ReasonMemoryPerRequest = "MEMORY_PER_REQUEST"

func memoryRefused(r *quota.Refusal, pool string) *Error {
	const retry = time.Second
	switch {
	case r.Asked > r.Share:
		return &Error{Code: BadUserInput, Reason: ReasonMemoryPerRequest, Message: fmt.Sprintf(
			"this request would hold about %s of memory (its body, its document and its answer), more than the %s one client may hold at once; "+
				"ask for fewer items (first/last), fewer fields or fewer aliases", mib(r.Asked), mib(r.Share))}
	case r.Scope == quota.Share:
		return &Error{Code: RateLimited, Reason: pool + "_PER_CLIENT", RetryAfter: retry, Message: fmt.Sprintf(
			"your requests in flight hold as much memory as one client may (%s) and this one needs about %s more; retry once they are answered",
			mib(r.Share), mib(r.Asked))}
	}
	return &Error{Code: Unavailable, Reason: pool + "_TOTAL", RetryAfter: retry, Message: fmt.Sprintf(
		"the server is at its memory budget for requests in flight (%s for all clients); retry in %d s", mib(r.Total), RetryAfterSeconds(retry))}
}

// mib writes a byte count for people: "1.5 MiB", "300 KiB".
func mib(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%d KiB", (b+1023)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
