package postgres

import (
	"context"

	"github.com/nqueens/nqueens/store"
)

// SendPageBatch sends reqs as one batch, as the page batcher's senders do,
// and returns each request's answer.
func (s *Store) SendPageBatch(ctx context.Context, reqs []store.PageRequest) ([][]store.Solution, []error) {
	calls := make([]*pageCall, len(reqs))
	for i, req := range reqs {
		calls[i] = &pageCall{ctx: ctx, req: req, done: make(chan struct{}, 1)}
	}
	s.q.pages.run(calls)
	pages, errs := make([][]store.Solution, len(reqs)), make([]error, len(reqs))
	for i, c := range calls {
		<-c.done
		pages[i], errs[i] = c.page, c.err
	}
	return pages, errs
}
