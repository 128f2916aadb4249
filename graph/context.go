package graph

import (
	"context"
	"sync/atomic"
)

// Values the HTTP layer puts in a request's context for the resolvers.

type bearerKey struct{}

// WithBearerToken records the token a request presented (the part of
// "Authorization: Bearer <token>" after the scheme; "" for none).
func WithBearerToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, bearerKey{}, token)
}

func bearerToken(ctx context.Context) string {
	s, _ := ctx.Value(bearerKey{}).(string)
	return s
}

// CacheHint collects, while a request is resolved, whether its answer may
// change later. The HTTP layer lets browsers and CDNs cache answers that
// will not (pages, solutions, finished boards) and makes them revalidate
// the others (boards still computing, counts not known yet).
type CacheHint struct {
	volatile atomic.Bool
}

// Volatile reports whether some part of the answer may change.
func (h *CacheHint) Volatile() bool { return h.volatile.Load() }

type cacheHintKey struct{}

// WithCacheHint returns a context carrying a fresh CacheHint.
func WithCacheHint(ctx context.Context) (context.Context, *CacheHint) {
	h := &CacheHint{}
	return context.WithValue(ctx, cacheHintKey{}, h), h
}

// markVolatile notes that the answer being built may change later.
func markVolatile(ctx context.Context) {
	if h, ok := ctx.Value(cacheHintKey{}).(*CacheHint); ok {
		h.volatile.Store(true)
	}
}
