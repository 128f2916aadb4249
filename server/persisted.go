package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/nqueens/nqueens/internal/apierror"
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

// codePersistedQueryNotFound is the code clients of APQ wait for.
const codePersistedQueryNotFound = "PERSISTED_QUERY_NOT_FOUND"

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

// persistedQueryOf reads a request's extensions.persistedQuery: the hash,
// whether the request has one, and what is wrong with it ("" when
// nothing is: a well-formed hash that, when the document comes with it,
// is the document's own).
func persistedQueryOf(params *graphql.RawParams) (hash string, present bool, wrong string) {
	ext, ok := params.Extensions["persistedQuery"]
	if !ok || ext == nil {
		return "", false, ""
	}
	const shape = `extensions.persistedQuery must be {"version": 1, "sha256Hash": "…"}, the hash being the SHA-256 of the query in 64 lower-case hexadecimal digits`
	m, ok := ext.(map[string]any)
	if !ok {
		return "", true, shape
	}
	if v, _ := m["version"].(json.Number); v != "1" {
		return "", true, `extensions.persistedQuery.version must be 1, the one version this server knows: {"version": 1, "sha256Hash": "…"}`
	}
	hash, _ = m["sha256Hash"].(string)
	if _, err := hex.DecodeString(hash); err != nil || len(hash) != 2*sha256.Size || strings.ToLower(hash) != hash {
		return "", true, shape
	}
	if params.Query != "" {
		if sum := sha256.Sum256([]byte(params.Query)); hex.EncodeToString(sum[:]) != hash {
			return "", true, "extensions.persistedQuery.sha256Hash is not the SHA-256 of the query; " +
				"send the query's own hash, or leave the query out to run one sent before with that hash"
		}
	}
	return hash, true, ""
}

// MutateOperationParameters fills in the document of a known hash, and
// checks the hash of a document sent with one.
func (l persistedQueryLookup) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	hash, present, wrong := persistedQueryOf(params)
	switch {
	case !present:
		return nil
	case wrong != "":
		return &gqlerror.Error{Message: wrong, Extensions: map[string]any{"code": string(apierror.BadUserInput)}}
	}
	pq := &persistedQuery{hash: hash, sent: params.Query != ""}
	if !pq.sent {
		var ok bool
		if params.Query, ok = l.cache.Get(ctx, hash); !ok {
			// The message is the one Apollo's clients look for.
			err := gqlerror.Errorf("PersistedQueryNotFound")
			errcode.Set(err, codePersistedQueryNotFound)
			return err
		}
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
