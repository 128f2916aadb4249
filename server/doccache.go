package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"

	"github.com/nqueens/nqueens/internal/bytecache"
)

// documentCache adapts a bytecache.Cache to gqlgen's graphql.Cache, for
// the parsed documents and the persisted queries.
type documentCache[V any] struct {
	*bytecache.Cache[string, V]
}

var (
	_ graphql.Cache[*ast.QueryDocument] = documentCache[*ast.QueryDocument]{}
	_ graphql.Cache[string]             = documentCache[string]{}
)

func newDocumentCache[V any](budget int64, cost func(string, V) int64) documentCache[V] {
	return documentCache[V]{bytecache.New(budget, cost)}
}

// Get implements graphql.Cache.
func (c documentCache[V]) Get(_ context.Context, key string) (V, bool) { return c.Cache.Get(key) }

// Add implements graphql.Cache.
func (c documentCache[V]) Add(_ context.Context, key string, v V) { c.Cache.Add(key, v) }

// costOf is what the parsed document of query takes: as the cache
// counted it when it kept it (the executor has just parsed it), else
// estimated again.
func (c documentCache[V]) costOf(query string) int64 {
	if cost, ok := c.Cost(query); ok {
		return cost
	}
	return documentCost(query, nil)
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
