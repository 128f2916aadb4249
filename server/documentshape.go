package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
)

// The codes of the limit errors as the extensions raise them; the error
// presenter shows them as BAD_USER_INPUT with the code as the reason.
// Registered as protocol errors, so that HTTP answers them with 400 like
// any other document that fails validation.
func init() {
	errcode.RegisterErrorType(apierror.ReasonDepth, errcode.KindProtocol)
	errcode.RegisterErrorType(apierror.ReasonComplexity, errcode.KindProtocol)
}

// documentShape is a handler extension that measures a document's shape
// (its tokens, its fields once fragments are spread, its depth, the
// comparisons validation would make) before gqlgen parses and validates
// it, and refuses it when it is too large. answerPricer prices the
// operation after validation.
//
// It runs first because validation itself is not linear: gqlparser's
// rules compare the fields that share a response name pair by pair, every
// pair of fragments spread in one selection set, and walk every fragment
// definition through the fragments it spreads; a 100 kB document of
// fragments or repeated fields keeps a core busy for seconds. The shape
// computed here takes time linear in the document (each fragment is
// measured once and reused wherever it is spread) and bounds all of
// that: a document within the limits validates in milliseconds
// (docs/SECURITY.md). A refused document is never validated, so it never
// enters the query cache either.
type documentShape struct {
	// MaxTokens bounds the document's lexical tokens (names, punctuation,
	// values); past it parsing stops.
	MaxTokens int
	// MaxFields bounds the fields of the document once every fragment
	// spread is replaced by its fragment's fields, summed over its
	// operations and fragment definitions: what executing and validating
	// it would visit.
	MaxFields int
	// MaxDepth bounds how deep fields nest in an operation (introspection
	// fields, which validation bounds already, are not counted).
	MaxDepth int
	// Known reports whether a document passed these checks before (it is
	// in the query cache); those are not priced again. Optional.
	Known func(ctx context.Context, query string) bool
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentShape{}

// ExtensionName implements graphql.HandlerExtension.
func (documentShape) ExtensionName() string { return "DocumentShape" }

// Validate implements graphql.HandlerExtension.
func (l documentShape) Validate(graphql.ExecutableSchema) error {
	if l.MaxTokens < 1 || l.MaxFields < 1 || l.MaxDepth < 1 {
		return errors.New("DocumentShape: every limit must be at least 1")
	}
	return nil
}

// comparisonsPerField is how many comparisons validation may make per
// field allowed (MaxFields): fields that share a response path, and
// fragments spread side by side, are compared in pairs. A document
// without repetition makes about one per field.
const comparisonsPerField = 8

// MutateOperationParameters implements graphql.OperationParameterMutator:
// it runs before gqlgen parses the document.
func (l documentShape) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if params.Query == "" || l.Known != nil && l.Known(ctx, params.Query) {
		return nil
	}
	src := &ast.Source{Input: params.Query}
	if tokensOver(src, l.MaxTokens) {
		return limitError(apierror.ReasonComplexity, "the document has more than %d tokens (names, punctuation and values), the most this server reads; send a smaller document, and large values as variables", l.MaxTokens)
	}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return nil // gqlgen parses it again and says what is wrong
	}
	p := shapeOf(doc)
	switch {
	case p.depth > l.MaxDepth:
		return limitError(apierror.ReasonDepth, "the operation nests fields %d deep; at most %d levels are allowed", p.depth, l.MaxDepth)
	case p.fields > l.MaxFields:
		return limitError(apierror.ReasonComplexity, "the document selects %s fields once its fragments are spread in place; at most %d are allowed", atLeast(p.fields), l.MaxFields)
	}
	if c := p.comparisons(doc); c > comparisonsPerField*l.MaxFields {
		return limitError(apierror.ReasonComplexity, "the document repeats fields or fragments in one place so often that checking it would take %d comparisons; at most %d are allowed (%d per field allowed)", c, comparisonsPerField*l.MaxFields, comparisonsPerField)
	}
	return nil
}

// tokensOver reports whether src has more than max tokens, reading no
// further than that. A document the lexer cannot read is left to the
// parser, which says why.
func tokensOver(src *ast.Source, max int) bool {
	lex := lexer.New(src)
	for range max + 1 {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return false
		}
	}
	return true
}

func limitError(reason, format string, a ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, a...)
	errcode.Set(err, reason)
	return err
}

// atLeast writes a saturated count as "more than N".
func atLeast(n int) string {
	if n >= saturated {
		return fmt.Sprintf("more than %d", saturated)
	}
	return fmt.Sprint(n)
}

// saturated caps the counts: a document of fragments that each spread the
// next one twice doubles its fields at every level.
const saturated = math.MaxInt32

func add(a, b int) int { return min(a+b, saturated) }

// shape is a document's shape, each fragment measured once.
type shape struct {
	frags map[string]*ast.FragmentDefinition
	memo  map[string]*setShape // nil value: being priced (a cycle)

	// fields is the sum over the operations and the fragment definitions
	// of their fields once spread; depth the deepest operation.
	fields, depth int
	// spreadPairs is the sum over the selection sets (inline fragments
	// merged into theirs, each set counted once) of the square of the
	// fragment spreads in it.
	spreadPairs int
}

// setShape is the shape of a selection set once its spreads are expanded.
type setShape struct{ fields, depth int }

// shapeOf measures doc in time linear in its size.
func shapeOf(doc *ast.QueryDocument) *shape {
	p := &shape{frags: map[string]*ast.FragmentDefinition{}, memo: map[string]*setShape{}}
	for _, f := range doc.Fragments {
		if _, dup := p.frags[f.Name]; !dup {
			p.frags[f.Name] = f
		}
	}
	for _, op := range doc.Operations {
		sp := p.set(op.SelectionSet)
		p.fields = add(p.fields, sp.fields)
		p.depth = max(p.depth, sp.depth)
	}
	for _, f := range doc.Fragments {
		p.fields = add(p.fields, p.fragment(f.Name).fields)
	}
	return p
}

func (p *shape) fragment(name string) setShape {
	if sp, done := p.memo[name]; done {
		if sp == nil {
			return setShape{} // a cycle: validation refuses it
		}
		return *sp
	}
	f := p.frags[name]
	if f == nil {
		return setShape{} // unknown: validation refuses it
	}
	p.memo[name] = nil
	sp := p.set(f.SelectionSet)
	p.memo[name] = &sp
	return sp
}

func (p *shape) set(ss ast.SelectionSet) setShape {
	var sp setShape
	spreads := 0
	var visit func(ast.SelectionSet)
	visit = func(ss ast.SelectionSet) {
		for _, sel := range ss {
			switch s := sel.(type) {
			case *ast.Field:
				sub := p.set(s.SelectionSet)
				sp.fields = add(sp.fields, add(1, sub.fields))
				if !strings.HasPrefix(s.Name, "__") {
					sp.depth = max(sp.depth, 1+sub.depth)
				}
			case *ast.InlineFragment:
				visit(s.SelectionSet)
			case *ast.FragmentSpread:
				spreads++
				f := p.fragment(s.Name)
				sp.fields = add(sp.fields, f.fields)
				sp.depth = max(sp.depth, f.depth)
			}
		}
	}
	visit(ss)
	if spreads > 1 {
		p.spreadPairs = add(p.spreadPairs, min(spreads, saturated/spreads)*spreads)
	}
	return sp
}

// comparisons bounds the comparisons validation's rule on overlapping
// fields makes: for each response path (aliases or names from the root of
// an operation or fragment definition, spreads expanded), the square of
// the fields found there, plus the pairs of fragments spread side by
// side. Called once fields is within its limit, it walks the expanded
// document, which is then small.
func (p *shape) comparisons(doc *ast.QueryDocument) int {
	type pathKey struct {
		parent int
		name   string
	}
	ids := map[pathKey]int{}
	var counts []int
	expanding := map[string]bool{}
	var walk func(parent int, ss ast.SelectionSet)
	walk = func(parent int, ss ast.SelectionSet) {
		for _, sel := range ss {
			switch s := sel.(type) {
			case *ast.Field:
				name := s.Alias
				if name == "" {
					name = s.Name
				}
				k := pathKey{parent, name}
				id, ok := ids[k]
				if !ok {
					id = len(counts)
					ids[k] = id
					counts = append(counts, 0)
				}
				counts[id]++
				walk(id, s.SelectionSet)
			case *ast.InlineFragment:
				walk(parent, s.SelectionSet)
			case *ast.FragmentSpread:
				if f := p.frags[s.Name]; f != nil && !expanding[s.Name] {
					expanding[s.Name] = true
					walk(parent, f.SelectionSet)
					delete(expanding, s.Name)
				}
			}
		}
	}
	root := -1
	for _, op := range doc.Operations {
		walk(root, op.SelectionSet)
		root--
	}
	for _, f := range doc.Fragments {
		expanding[f.Name] = true
		walk(root, f.SelectionSet)
		delete(expanding, f.Name)
		root--
	}
	total := p.spreadPairs
	for _, c := range counts {
		total = add(total, c*c)
	}
	return total
}
