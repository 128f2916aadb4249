package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// DirectPages answers the most common query, a page of solutions, without
// gqlgen's executor: the same resolvers run, and their results are written
// as JSON directly. gqlgen marshals every item of a list of objects in a
// goroutine of its own, with a field context for each item and each of its
// fields; for a page of 20 solutions that was a third of a request's CPU
// (docs/PERFORMANCE.md, "A page against the floor").
//
// Only operations of one shape are answered here: a query whose one root
// field is solutions or uniqueSolutions without `where`, selecting
// totalCount, source, edges { cursor node { … } } and pageInfo { … },
// where node selects only fields without arguments that need no lookup of
// their own beyond the page's (placement, compact, n, id, isCanonical,
// orbitSize, rank, uniqueRank), and nowhere a fragment, a directive or
// two fields under one name. Anything else, and any answer with an error,
// goes to gqlgen (next): the document has been parsed, validated and priced
// before either runs, so every limit holds the same way for both.
// Answered counts the operations answered here (Server.DirectPageAnswers).
// TraceRoot, when set, starts the span of the root field's resolver, as
// the tracing extension does for gqlgen's fields.
type DirectPages struct {
	Resolver  *Resolver
	TraceRoot func(ctx context.Context, object string, f *ast.Field) (context.Context, func(error))
	Answered  atomic.Int64
}

var (
	_ graphql.HandlerExtension    = (*DirectPages)(nil)
	_ graphql.ResponseInterceptor = (*DirectPages)(nil)
)

// ExtensionName implements graphql.HandlerExtension.
func (*DirectPages) ExtensionName() string { return "DirectPages" }

// Validate implements graphql.HandlerExtension.
func (*DirectPages) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse implements graphql.ResponseInterceptor.
func (d *DirectPages) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) || len(graphql.GetErrors(ctx)) > 0 {
		// An operation refused before it ran (it does not parse,
		// validate or fit its price): its errors are the answer.
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil {
		return next(ctx)
	}
	root, ok := pageShape(oc.Operation)
	if !ok {
		return next(ctx)
	}
	if data, ok := d.tryAnswer(ctx, root, oc.Variables); ok {
		d.Answered.Add(1)
		return &graphql.Response{Data: data}
	}
	return next(ctx)
}

// tryAnswer is answer with a panic turned into "not answered": gqlgen
// runs the operation again and reports the panic as it reports any
// resolver's.
func (d *DirectPages) tryAnswer(ctx context.Context, root *ast.Field, vars map[string]any) (data json.RawMessage, ok bool) {
	defer func() {
		if recover() != nil {
			data, ok = nil, false
		}
	}()
	return d.answer(ctx, root, vars)
}

// The fields a direct answer can write, by the type that has them.
var (
	directConnectionFields = fieldSet("totalCount", "source", "edges", "pageInfo", "__typename")
	directEdgeFields       = fieldSet("cursor", "node", "__typename")
	directNodeFields       = fieldSet("placement", "compact", "n", "id", "isCanonical", "orbitSize", "rank", "uniqueRank", "__typename")
	directPageInfoFields   = fieldSet("hasNextPage", "hasPreviousPage", "startCursor", "endCursor", "__typename")
	directRootArguments    = fieldSet("n", "first", "after", "last", "before")
)

func fieldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// pageShape returns the root field of op when op has the shape
// DirectPages answers.
func pageShape(op *ast.OperationDefinition) (*ast.Field, bool) {
	if op.Operation != ast.Query || len(op.Directives) > 0 || len(op.SelectionSet) != 1 {
		return nil, false
	}
	root, ok := op.SelectionSet[0].(*ast.Field)
	if !ok || (root.Name != "solutions" && root.Name != "uniqueSolutions") || len(root.Directives) > 0 {
		return nil, false
	}
	for _, a := range root.Arguments {
		if !directRootArguments[a.Name] {
			return nil, false
		}
	}
	return root, plainFields(root.SelectionSet, directConnectionFields, func(f *ast.Field) bool {
		switch f.Name {
		case "edges":
			return plainFields(f.SelectionSet, directEdgeFields, func(f *ast.Field) bool {
				return f.Name != "node" || plainFields(f.SelectionSet, directNodeFields, nil)
			})
		case "pageInfo":
			return plainFields(f.SelectionSet, directPageInfoFields, nil)
		}
		return true
	})
}

// plainFields reports whether set holds only fields named in allowed,
// without arguments, directives or repeated response names, each
// accepted by inner (nil: all).
func plainFields(set ast.SelectionSet, allowed map[string]bool, inner func(*ast.Field) bool) bool {
	seen := make(map[string]bool, len(set))
	for _, s := range set {
		f, ok := s.(*ast.Field)
		if !ok || !allowed[f.Name] || len(f.Arguments) > 0 || len(f.Directives) > 0 || seen[f.Alias] {
			return false
		}
		seen[f.Alias] = true
		if inner != nil && !inner(f) {
			return false
		}
	}
	return true
}

// answer runs the page's resolvers and writes the operation's data, as
// gqlgen would write it; false when anything would make an error.
func (d *DirectPages) answer(ctx context.Context, root *ast.Field, vars map[string]any) (json.RawMessage, bool) {
	args := root.ArgumentMap(vars)
	n, err := UnmarshalInt(args["n"])
	if err != nil {
		return nil, false
	}
	first, ok1 := optionalInt(args["first"])
	last, ok2 := optionalInt(args["last"])
	after, ok3 := optionalString(args["after"])
	before, ok4 := optionalString(args["before"])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	rctx, end := ctx, func(error) {}
	if d.TraceRoot != nil {
		rctx, end = d.TraceRoot(ctx, "Query", root)
	}
	conn, err := d.Resolver.connection(rctx, n, root.Name == "uniqueSolutions", nil, first, after, last, before, nil)
	end(err)
	if err != nil || conn == nil {
		return nil, false
	}
	w := &directWriter{ctx: ctx, r: d.Resolver}
	w.buf.Grow(256 + 128*len(conn.Edges)) // a page of N=16: 2 KiB
	w.buf.WriteByte('{')
	w.key(root.Alias)
	w.connection(root.SelectionSet, conn)
	w.buf.WriteByte('}')
	if w.failed {
		return nil, false
	}
	return w.buf.Bytes(), true
}

// optionalInt reads a nullable Int argument as gqlgen's unmarshalOInt does.
func optionalInt(v any) (*int, bool) {
	if v == nil {
		return nil, true
	}
	i, err := UnmarshalInt(v)
	return &i, err == nil
}

// optionalString reads a nullable String argument.
func optionalString(v any) (*string, bool) {
	if v == nil {
		return nil, true
	}
	s, err := graphql.UnmarshalString(v)
	return &s, err == nil
}

// directWriter writes JSON as gqlgen's marshallers do, byte for byte;
// failed is set by a resolver's error, and the answer is dropped.
type directWriter struct {
	ctx    context.Context
	r      *Resolver
	buf    bytes.Buffer
	failed bool
}

// key writes a field's response name and the colon, after a comma unless
// the object has just opened.
func (w *directWriter) key(name string) {
	if b := w.buf.Bytes(); len(b) > 0 && b[len(b)-1] != '{' {
		w.buf.WriteByte(',')
	}
	// A response name is a GraphQL name ([_A-Za-z][_0-9A-Za-z]*): nothing
	// in it is escaped.
	w.buf.WriteByte('"')
	w.buf.WriteString(name)
	w.buf.WriteString(`":`)
}

// str writes a string as gqlgen's MarshalString does: cursors, ids and
// compact forms have nothing to escape, so they are copied as they are.
func (w *directWriter) str(s string) {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '\\' || c == '"' {
			graphql.MarshalString(s).MarshalGQL(&w.buf)
			return
		}
	}
	w.buf.WriteByte('"')
	w.buf.WriteString(s)
	w.buf.WriteByte('"')
}

// int writes an Int as MarshalInt does.
func (w *directWriter) int(i int) {
	if 0 <= i && i < 10 { // most of a placement's
		w.buf.WriteByte(byte('0' + i))
		return
	}
	w.buf.Write(strconv.AppendInt(w.buf.AvailableBuffer(), int64(i), 10))
}

// bool writes a Boolean as graphql.MarshalBoolean does.
func (w *directWriter) bool(b bool) {
	if b {
		w.buf.WriteString("true")
	} else {
		w.buf.WriteString("false")
	}
}

// object writes one object of a selection set: each field's key, then its
// value by field (the type's own fields) or the type's name.
func (w *directWriter) object(set ast.SelectionSet, typename string, field func(f *ast.Field)) {
	w.buf.WriteByte('{')
	for _, s := range set {
		f := s.(*ast.Field)
		w.key(f.Alias)
		if f.Name == "__typename" {
			w.str(typename)
		} else {
			field(f)
		}
	}
	w.buf.WriteByte('}')
}

func (w *directWriter) connection(set ast.SelectionSet, c *SolutionConnection) {
	w.object(set, "SolutionConnection", func(f *ast.Field) {
		switch f.Name {
		case "totalCount":
			t, err := w.r.SolutionConnection().TotalCount(w.ctx, c)
			w.bigInt(t, err)
		case "source":
			c.Source.MarshalGQL(&w.buf)
		case "edges":
			w.buf.WriteByte('[')
			for i, e := range c.Edges {
				if i > 0 {
					w.buf.WriteByte(',')
				}
				w.edge(f.SelectionSet, e)
			}
			w.buf.WriteByte(']')
		case "pageInfo":
			w.pageInfo(f.SelectionSet, c.PageInfo)
		}
	})
}

func (w *directWriter) edge(set ast.SelectionSet, e *SolutionEdge) {
	w.object(set, "SolutionEdge", func(f *ast.Field) {
		switch f.Name {
		case "cursor":
			w.str(e.Cursor)
		case "node":
			w.node(f.SelectionSet, e.Node)
		}
	})
}

func (w *directWriter) node(set ast.SelectionSet, s *Solution) {
	w.object(set, "Solution", func(f *ast.Field) {
		switch f.Name {
		case "placement":
			w.buf.WriteByte('[')
			for i, c := range s.Placement() {
				if i > 0 {
					w.buf.WriteByte(',')
				}
				w.int(c)
			}
			w.buf.WriteByte(']')
		case "compact":
			w.str(s.Compact())
		case "n":
			w.int(s.N)
		case "id":
			w.str(s.ID())
		case "isCanonical":
			w.bool(s.IsCanonical())
		case "orbitSize":
			w.int(s.OrbitSize())
		case "rank":
			w.bigInt(w.r.Solution().Rank(w.ctx, s))
		case "uniqueRank":
			w.bigInt(w.r.Solution().UniqueRank(w.ctx, s))
		}
	})
}

func (w *directWriter) pageInfo(set ast.SelectionSet, p *PageInfo) {
	w.object(set, "PageInfo", func(f *ast.Field) {
		switch f.Name {
		case "hasNextPage":
			w.bool(p.HasNextPage)
		case "hasPreviousPage":
			w.bool(p.HasPreviousPage)
		case "startCursor":
			w.optionalString(p.StartCursor)
		case "endCursor":
			w.optionalString(p.EndCursor)
		}
	})
}

func (w *directWriter) optionalString(s *string) {
	if s == nil {
		w.buf.WriteString("null")
		return
	}
	w.str(*s)
}

// bigInt writes a nullable BigInt; an error fails the answer (gqlgen
// writes null and reports the error).
func (w *directWriter) bigInt(b *BigInt, err error) {
	switch {
	case err != nil:
		w.failed = true
	case b == nil:
		w.buf.WriteString("null")
	default:
		w.buf.WriteByte('"')
		w.buf.Write(strconv.AppendUint(w.buf.AvailableBuffer(), uint64(*b), 10))
		w.buf.WriteByte('"')
	}
}
