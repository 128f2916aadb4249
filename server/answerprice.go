package server

import (
	"context"
	"errors"
	"math"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/internal/quota"
	"github.com/nqueens/nqueens/solver"
)

// answerPricer is a handler extension that prices an operation after
// validation, before any resolver runs (its answer price): in complexity
// and in memory. It runs after documentShape, which bounds the
// document's shape before validation.
//
// It refuses an operation whose complexity, with its variables, passes
// Limit: each field costs 1 plus its children, unless the schema's
// complexity functions (graph's complexitycosts.go) say otherwise, e.g. a
// page multiplies its items' cost by first/last. A field whose arguments
// it refuses (ArgumentError) costs 1.
//
// It estimates the bytes of the operation's answer (answersize.go) and
// has the request hold, against its client's share and the server's
// budget (the request's admission, admission.go), the parsed document
// and what answering takes (answerPrice.Held): a request that does not
// fit is refused with the refusal's error (apierror.Refused) before it
// allocates any of it.
//
// It replaces gqlgen's extension.ComplexityLimit, which walks every
// fragment again wherever it is spread: a document whose fragments each
// spread the next one twice costs it time doubling with every fragment.
// Here a fragment is priced once per operation (its fields and their
// arguments do not depend on where it is spread, and its sizes are
// functions of the N of wherever it is), so the walk is linear in the
// document.
type answerPricer struct {
	Limit int
	// DocumentBytes estimates the memory of a parsed document from its
	// text (the query cache's cost); nil: its length.
	DocumentBytes func(query string) int64
	// PageSize and MaxPageSize are the resolvers' default and largest
	// page (graph.Options).
	PageSize, MaxPageSize int
	// ArgumentError says what a field answers for arguments it refuses
	// (graph.Resolver.ArgumentError): such a field does no work and
	// answers only that error, so it is priced as one field without its
	// children, and the client learns what the field allows rather than
	// that the operation costs too much. nil: every argument is priced as
	// it is.
	ArgumentError func(obj, field string, args map[string]any) error

	es    graphql.ExecutableSchema // set by Validate, when the handler takes the extension
	sizes *answerSizes
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = &answerPricer{}

// ExtensionName implements graphql.HandlerExtension.
func (*answerPricer) ExtensionName() string { return "AnswerPrice" }

// Validate implements graphql.HandlerExtension.
func (c *answerPricer) Validate(es graphql.ExecutableSchema) error {
	if c.Limit < 1 || c.PageSize < 1 || c.MaxPageSize < c.PageSize {
		return errors.New("AnswerPrice: Limit and PageSize must be at least 1, MaxPageSize at least PageSize")
	}
	c.es = es
	c.sizes = newAnswerSizes(es.Schema())
	return nil
}

// MutateOperationContext implements graphql.OperationContextMutator: it
// runs once the document is parsed and validated, before any resolver.
func (c *answerPricer) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if opCtx.Operation == nil {
		return nil
	}
	p := c.Price(ctx, opCtx.Operation, opCtx.Variables)
	if p.Complexity > c.Limit {
		return limitError(apierror.ReasonComplexity, "the operation's complexity is %s, over the limit of %d; ask for fewer items (first/last) or fewer nested fields", atLeast(p.Complexity), c.Limit)
	}
	a, _ := ctx.Value(turnKey{}).(*admission)
	if a == nil {
		return nil
	}
	doc := int64(len(opCtx.RawQuery))
	if c.DocumentBytes != nil {
		doc = c.DocumentBytes(opCtx.RawQuery)
	}
	if err := a.Grow(ctx, satAdd(doc, p.Held())); err != nil {
		var refusal *quota.Refusal
		if errors.As(err, &refusal) {
			return gqlerror.Wrap(apierror.Refused(refusal))
		}
		return gqlerror.Wrap(err)
	}
	return nil
}

// answerPrice is what an operation costs before it runs.
type answerPrice struct {
	// Complexity is its complexity, as the limit counts it.
	Complexity int
	// AnswerBytes is the expected size of its answer's JSON, Values the
	// values in it, WorkBytes the working memory of its fields
	// (complete's searches), each at most what it will take.
	AnswerBytes, Values, WorkBytes int64
}

// What answering holds, per byte and per value of its answer: gqlgen
// resolves every field into a marshaller (a value in the tree, with the
// strings and lists it holds) before it writes the JSON into a buffer
// grown by doubling; a GET's answer is then copied whole (for its ETag),
// once the tree is garbage. Measured as the most the live heap grew by
// while one request was answered, against its estimate, for every shape
// of TestAnswerEstimateCalibration (package server): at most 5.2 times
// the answer's bytes, for a page of 1000 of N=16 with its pictures, rows
// and matrices (311,000 values); the heap allocated meanwhile is larger
// (6 to 30 times the answer), but most of it is garbage before the peak
// and the soft limit has the collector take it back.
const (
	heldPerAnswerByte = 5
	heldPerValue      = 16
)

// Held is the memory a request holds while its operation is answered.
func (p answerPrice) Held() int64 {
	return satAdd(satAdd(satMul(heldPerAnswerByte, p.AnswerBytes), satMul(heldPerValue, p.Values)), p.WorkBytes)
}

// answerEnvelope is what every answer adds to its fields: {"data":…}, and
// room for an error or two.
const answerEnvelope = 1 << 10

// answerPrice prices operation op with its variables: complexity and memory.
func (c *answerPricer) Price(ctx context.Context, op *ast.OperationDefinition, vars map[string]any) answerPrice {
	w := complexityWalk{ctx: ctx, c: c, vars: vars, memo: map[string]*selectionPrice{}}
	p := w.set(op.SelectionSet)
	// Fields whose N is not known (none at the root: Query's fields name
	// theirs) are priced at the largest.
	whole := p.whole.fixed(solver.MaxSearchN)
	return answerPrice{
		Complexity:  p.complexity,
		AnswerBytes: satAdd(toBytes(whole.bytes[0]), answerEnvelope),
		Values:      toBytes(whole.values[0]),
		WorkBytes:   toBytes(whole.work[0]),
	}
}

// toBytes rounds a size up to a count, saturated.
func toBytes(f float64) int64 {
	if f >= 1<<62 || math.IsNaN(f) {
		return 1 << 62
	}
	return int64(math.Ceil(max(f, 0)))
}

func satAdd(a, b int64) int64 { return min(a+b, 1<<62) }

func satMul(k, a int64) int64 {
	if a > (1<<62)/k {
		return 1 << 62
	}
	return k * a
}

// complexityWalk prices an operation: its complexity as gqlgen's
// complexity package computes it, and its answer's size; each fragment
// once.
type complexityWalk struct {
	ctx  context.Context
	c    *answerPricer
	vars map[string]any
	memo map[string]*selectionPrice // nil: being priced (a cycle, which validation refused)
}

// selectionPrice is what a selection set costs: its complexity, and its size
// (whole), but for the items of a connection's page (perItem: edges and
// nodes), which the connection's field multiplies by its page.
type selectionPrice struct {
	complexity     int
	whole, perItem size
}

func (p selectionPrice) plus(q selectionPrice) selectionPrice {
	return selectionPrice{add(p.complexity, q.complexity), p.whole.plus(q.whole), p.perItem.plus(q.perItem)}
}

func (w *complexityWalk) set(ss ast.SelectionSet) selectionPrice {
	var total selectionPrice
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			cost, sz, perItem := w.field(s)
			total.complexity = add(total.complexity, cost)
			if perItem {
				total.perItem = total.perItem.plus(sz)
			} else {
				total.whole = total.whole.plus(sz)
			}
		case *ast.InlineFragment:
			total = total.plus(w.set(s.SelectionSet))
		case *ast.FragmentSpread:
			p, ok := w.memo[s.Name]
			if !ok && s.Definition != nil {
				w.memo[s.Name] = nil
				q := w.set(s.Definition.SelectionSet)
				p = &q
				w.memo[s.Name] = p
			}
			if p != nil {
				total = total.plus(*p)
			}
		}
	}
	return total
}

// field is a field's cost, its size, and whether that size is per item
// of its connection's page. Its cost is its schema complexity function's,
// given its children's cost and arguments, or 1 plus its children's; a
// field of an interface costs what it costs on the dearest of the
// interface's types. Introspection costs no complexity (validation bounds
// its depth), but its answer is priced like any other.
func (w *complexityWalk) field(f *ast.Field) (int, size, bool) {
	if f.Definition == nil || f.ObjectDefinition == nil {
		return 1, size{}, false
	}
	schema := w.c.es.Schema()
	t := f.Definition.Type
	typ := schema.Types[t.Name()]
	if typ == nil {
		return 1, size{}, false
	}
	obj, name := f.ObjectDefinition.Name, f.Name
	var args map[string]any // most fields have none: no map to make
	if len(f.Arguments) > 0 || len(f.Definition.Arguments) > 0 {
		args = f.ArgumentMap(w.vars)
	}
	if w.c.ArgumentError != nil && w.c.ArgumentError(obj, name, args) != nil {
		// null and its error, which says what is allowed.
		return 1, size{bytes: constant(float64(len(f.Alias)+8) + 2*maxMessage), values: constant(1)}, false
	}
	var children selectionPrice
	switch typ.Kind {
	case ast.Object, ast.Interface, ast.Union:
		children = w.set(f.SelectionSet)
	}
	sz := w.size(obj, name, t, typ, args, children)
	sz.bytes = sz.bytes.plus(constant(float64(len(f.Alias) + 4))) // "key":…,
	perItem := itemsPerPage(obj, name)
	if typ.Name == "__Schema" {
		return 0, sz, perItem
	}
	objects := []*ast.Definition{f.ObjectDefinition}
	if f.ObjectDefinition.Kind == ast.Interface {
		objects = schema.GetPossibleTypes(f.ObjectDefinition)
	}
	cost := 0
	for _, o := range objects {
		c, ok := w.c.es.Complexity(w.ctx, o.Name, name, children.complexity, args)
		if !ok || c < 1 {
			c = add(1, children.complexity)
		}
		cost = max(cost, c)
	}
	return cost, sz, perItem
}

// size is the size of a field's value: a leaf's own, or its object's
// (its children, a connection's items times its page) times the objects
// it lists, at the N its arguments say.
func (w *complexityWalk) size(obj, name string, t *ast.Type, typ *ast.Definition, args map[string]any, children selectionPrice) size {
	z := w.c.sizes
	if typ.Kind == ast.Scalar || typ.Kind == ast.Enum {
		return size(z.leafSize(obj, name, t))
	}
	sc, n := scopeOf(obj, name, args)
	var work nBytes
	if where, ok := args["where"]; ok && where != nil {
		work = constant(filterWork) // a search for this request
	}
	one := children.whole.plus(size{bytes: constant(2), values: constant(1)}) // {…}
	if typ.Name == "SolutionConnection" {
		items := pageItems(args, w.c.PageSize, w.c.MaxPageSize)
		perItem := children.perItem
		if sc == fixedN {
			// A page lists no more than its board has.
			items = min(items, listingBound(n))
			perItem = perItem.fixed(n)
		}
		one = one.plus(perItem.times(items))
	}
	sz := one.times(z.itemsOf(obj, name, t))
	sz.work = sz.work.plus(work)
	if t.Elem != nil {
		sz.bytes = sz.bytes.plus(constant(2)) // […]
	}
	switch sc {
	case fixedN:
		sz = sz.fixed(n)
		if obj == "Query" && name == "complete" {
			sz.work = sz.work.plus(constant(completeWorkPerRow * float64(n)))
		}
	case everyN:
		var sum size
		for n := 1; n <= solver.MaxSearchN; n++ {
			sum = sum.plus(sz.fixed(n))
		}
		sz = sum
	}
	return sz
}
