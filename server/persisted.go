package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// persistedQueries implements automatic persisted queries (Apollo's APQ):
// a client sends the SHA-256 hash of its document in
// extensions.persistedQuery.sha256Hash instead of the document; when the
// server does not know the hash it answers PERSISTED_QUERY_NOT_FOUND and
// the client sends both, which registers the document.
//
// Unlike gqlgen's extension.AutomaticPersistedQuery, which registers a
// document as soon as its hash matches, a document is registered only once
// it has parsed, validated and passed every limit: a refused document
// takes no room. Two extensions share the cache: lookup runs before the
// document is parsed, register after every check.
type persistedQueries struct {
	cache graphql.Cache[string]
}

// persistedQuery is what lookup leaves for register in the operation's
// stats.
type persistedQuery struct {
	hash string
	sent bool // the client sent the document with its hash
}

const persistedQueryStats = "nqueens.persistedQuery"

// CodePersistedQueryNotFound is the code clients of APQ wait for.
const CodePersistedQueryNotFound = "PERSISTED_QUERY_NOT_FOUND"

func (p persistedQueries) lookup() graphql.HandlerExtension   { return persistedQueryLookup(p) }
func (p persistedQueries) register() graphql.HandlerExtension { return persistedQueryRegister(p) }

type (
	persistedQueryLookup   persistedQueries
	persistedQueryRegister persistedQueries
)

var (
	_ graphql.OperationParameterMutator = persistedQueryLookup{}
	_ graphql.OperationContextMutator   = persistedQueryRegister{}
)

func (persistedQueryLookup) ExtensionName() string                   { return "PersistedQueryLookup" }
func (persistedQueryLookup) Validate(graphql.ExecutableSchema) error { return nil }

func (persistedQueryRegister) ExtensionName() string                   { return "PersistedQueryRegister" }
func (persistedQueryRegister) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters fills in the document of a known hash, and
// checks the hash of a document sent with one.
func (l persistedQueryLookup) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	ext, ok := params.Extensions["persistedQuery"]
	if !ok || ext == nil {
		return nil
	}
	m, _ := ext.(map[string]any)
	hash, _ := m["sha256Hash"].(string)
	version, _ := m["version"].(json.Number)
	if f, _ := m["version"].(float64); f == 1 {
		version = "1"
	}
	if hash == "" || version != "1" {
		return gqlerror.Errorf(`extensions.persistedQuery must be {"version": 1, "sha256Hash": "<hex SHA-256 of the document>"}`)
	}
	pq := &persistedQuery{hash: hash}
	if params.Query == "" {
		if params.Query, ok = l.cache.Get(ctx, hash); !ok {
			err := gqlerror.Errorf("the server does not know the persisted query %s; send it again with its document", hash)
			errcode.Set(err, CodePersistedQueryNotFound)
			return err
		}
	} else {
		sum := sha256.Sum256([]byte(params.Query))
		if hex.EncodeToString(sum[:]) != hash {
			return gqlerror.Errorf("extensions.persistedQuery.sha256Hash is not the SHA-256 of the document sent with it (lowercase hex)")
		}
		pq.sent = true
	}
	graphql.GetOperationContext(ctx).Stats.SetExtension(persistedQueryStats, pq)
	return nil
}

// MutateOperationContext registers a document sent with its hash, now
// that it has passed every check.
func (r persistedQueryRegister) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if pq, ok := opCtx.Stats.GetExtension(persistedQueryStats).(*persistedQuery); ok && pq.sent {
		r.cache.Add(ctx, pq.hash, opCtx.RawQuery)
	}
	return nil
}
