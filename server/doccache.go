package server

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
)

// byteCache is an LRU cache of documents bounded by the bytes its entries
// take, as estimated by cost, not by their number: a cache of 1,000
// entries holds 1,000 one-megabyte documents as readily as 1,000 small
// ones. An entry larger than an eighth of the budget is not kept, so that
// one document cannot empty the cache. It implements graphql.Cache.
type byteCache[V any] struct {
	budget int64
	cost   func(key string, v V) int64

	mu    sync.Mutex
	used  int64
	order *list.List // of *byteEntry[V], most recently used first
	index map[string]*list.Element
}

type byteEntry[V any] struct {
	key  string
	v    V
	cost int64
}

var (
	_ graphql.Cache[*ast.QueryDocument] = (*byteCache[*ast.QueryDocument])(nil)
	_ graphql.Cache[string]             = (*byteCache[string])(nil)
)

func newByteCache[V any](budget int64, cost func(key string, v V) int64) *byteCache[V] {
	return &byteCache[V]{budget: budget, cost: cost, order: list.New(), index: map[string]*list.Element{}}
}

// Get implements graphql.Cache.
func (c *byteCache[V]) Get(_ context.Context, key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*byteEntry[V]).v, true
	}
	var zero V
	return zero, false
}

// Add implements graphql.Cache.
func (c *byteCache[V]) Add(_ context.Context, key string, v V) {
	cost := c.cost(key, v)
	if cost > c.budget/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[key]; ok {
		c.remove(el)
	}
	c.index[key] = c.order.PushFront(&byteEntry[V]{key: key, v: v, cost: cost})
	c.used += cost
	for c.used > c.budget {
		c.remove(c.order.Back())
	}
}

func (c *byteCache[V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*byteEntry[V])
	delete(c.index, e.key)
	c.used -= e.cost
}

// Used returns the bytes the entries take, by their estimates.
func (c *byteCache[V]) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// astBytesPerToken is about what a parsed document takes in memory per
// token of its text (measured: 30 to 110 bytes a token, list values the
// most), on top of the text itself, which the document keeps.
const astBytesPerToken = 110

// documentCost estimates the memory a parsed document takes: its text and
// its syntax tree, from the number of tokens of the text.
func documentCost(query string, _ *ast.QueryDocument) int64 {
	lex := lexer.New(&ast.Source{Input: query})
	tokens := int64(0)
	for {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			break
		}
		tokens++
	}
	return int64(len(query)) + astBytesPerToken*tokens
}

// persistedQueryCost is what a persisted query takes: its hash and text.
func persistedQueryCost(hash, query string) int64 { return int64(len(hash) + len(query)) }
