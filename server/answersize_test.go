package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/graph"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// testPricer is the extension as the server sets it up, over a resolver
// with the default options.
func testPricer(t *testing.T) *answerPricer {
	t.Helper()
	opts := graph.DefaultOptions()
	r, err := graph.NewResolver(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &answerPricer{Limit: 20000, PageSize: opts.DefaultPageSize, MaxPageSize: opts.MaxPageSize, ArgumentError: r.ArgumentError}
	if err := c.Validate(graph.NewSchema(r)); err != nil {
		t.Fatal(err)
	}
	return c
}

func priceQuery(t *testing.T, c *answerPricer, q string) answerPrice {
	t.Helper()
	doc, errs := gqlparser.LoadQueryWithRules(c.es.Schema(), q, nil) // the default rules
	if errs != nil {
		t.Fatalf("%s: %v", q, errs)
	}
	return c.Price(context.Background(), doc.Operations[0], nil)
}

// TestEveryListFieldIsSized: every field of the schema that lists (its
// own types' and introspection's) has a size: a list of objects its
// count of items (or the page of its connection, or every board), a list
// of leaves its own bytes; so that a field added later is not priced as
// one item.
func TestEveryListFieldIsSized(t *testing.T) {
	t.Parallel()
	c := testPricer(t)
	for _, def := range c.es.Schema().Types {
		if def.Kind != ast.Object && def.Kind != ast.Interface {
			continue
		}
		for _, f := range def.Fields {
			if f.Type.Elem == nil {
				continue
			}
			key := def.Name + "." + f.Name
			elem := c.es.Schema().Types[f.Type.Name()]
			_, items := c.sizes.items[key]
			_, leaves := c.sizes.leaves[key]
			switch {
			case itemsPerPage(def.Name, f.Name), key == "Query.boards", key == "Node.id":
			case elem.Kind == ast.Object || elem.Kind == ast.Interface || elem.Kind == ast.Union:
				if !items {
					t.Errorf("%s lists %s objects, but its count of items is not known", key, elem.Name)
				}
			case !leaves:
				t.Errorf("%s lists %s values, but its size is not known", key, elem.Name)
			}
		}
	}
}

// TestFragmentPricedAtEachN: a fragment spread under boards of different
// sizes is priced once, as a function of N, and costs at each what its
// fields written in place cost there.
func TestFragmentPricedAtEachN(t *testing.T) {
	t.Parallel()
	c := testPricer(t)
	spread := priceQuery(t, c, `{ a: solutions(n: 8, first: 10) { ...F } b: solutions(n: 16, first: 10) { ...F } c: solutionAt(n: 30, rank: 1) { ...S } }
		fragment F on SolutionConnection { nodes { ...S } }
		fragment S on Solution { placement rows matrix svg chess symmetries { placement } }`)
	inPlace := priceQuery(t, c, `{ a: solutions(n: 8, first: 10) { nodes { placement rows matrix svg chess symmetries { placement } } }
		b: solutions(n: 16, first: 10) { nodes { placement rows matrix svg chess symmetries { placement } } }
		c: solutionAt(n: 30, rank: 1) { placement rows matrix svg chess symmetries { placement } } }`)
	if spread != inPlace {
		t.Errorf("spread %+v, in place %+v", spread, inPlace)
	}
	small := priceQuery(t, c, `{ solutions(n: 8, first: 10) { nodes { svg } } }`)
	large := priceQuery(t, c, `{ solutions(n: 16, first: 10) { nodes { svg } } }`)
	if large.AnswerBytes <= small.AnswerBytes {
		t.Errorf("pictures of N=16 priced %d bytes, of N=8 %d", large.AnswerBytes, small.AnswerBytes)
	}
}

// TestPagesPricedByTheirItems: a page costs its items' size times its
// size (first or last, else the default page), no more than its board
// has; a size the field refuses lists nothing.
func TestPagesPricedByTheirItems(t *testing.T) {
	t.Parallel()
	c := testPricer(t)
	bytesOf := func(q string) int64 { return priceQuery(t, c, q).AnswerBytes - answerEnvelope }
	one := bytesOf(`{ solutions(n: 12, first: 1) { nodes { svg } } }`)
	hundred := bytesOf(`{ solutions(n: 12, first: 100) { nodes { svg } } }`)
	if hundred < 90*one || hundred > 100*one {
		t.Errorf("a page of 100 priced %d bytes, one item %d", hundred, one)
	}
	if d, twenty := bytesOf(`{ solutions(n: 12) { nodes { svg } } }`), bytesOf(`{ solutions(n: 12, last: 20) { nodes { svg } } }`); d != twenty {
		t.Errorf("the default page priced %d bytes, last: 20 %d", d, twenty)
	}
	// N=6 has 4 solutions: a page of 1000 lists at most 9.
	if six, nine := bytesOf(`{ solutions(n: 6, first: 1000) { nodes { svg } } }`), bytesOf(`{ solutions(n: 6, first: 9) { nodes { svg } } }`); six != nine {
		t.Errorf("a page of 1000 of N=6 priced %d bytes, of 9 %d", six, nine)
	}
	if refused := bytesOf(`{ solutions(n: 12, first: 5000) { nodes { svg } } }`); refused > one {
		t.Errorf("a page the field refuses priced %d bytes", refused)
	}
}

// TestIntrospectionPriced: introspection costs no complexity, but its
// answer is priced, alias by alias.
func TestIntrospectionPriced(t *testing.T) {
	t.Parallel()
	c := testPricer(t)
	field := "__schema { types { name description fields { name description args { name type { name } } } } }"
	one := priceQuery(t, c, "{ "+field+" }")
	var q strings.Builder
	q.WriteString("{")
	for i := range 50 {
		fmt.Fprintf(&q, " a%d: %s", i, field)
	}
	q.WriteString(" }")
	fifty := priceQuery(t, c, q.String())
	t.Logf("one introspection of types and fields: %d bytes, %d values; fifty: %d bytes", one.AnswerBytes, one.Values, fifty.AnswerBytes)
	if one.Complexity != 0 || one.AnswerBytes < 20_000 {
		t.Errorf("introspection priced %+v", one)
	}
	if got := fifty.AnswerBytes - answerEnvelope; got < 49*(one.AnswerBytes-answerEnvelope) {
		t.Errorf("fifty aliases priced %d bytes, one %d", got, one.AnswerBytes)
	}
}

// TestCompletePricedByItsRows: complete's working memory and answer grow
// with its N, and an N it refuses is priced as the one field whose error
// says what is allowed, with no work.
func TestCompletePricedByItsRows(t *testing.T) {
	t.Parallel()
	c := testPricer(t)
	small := priceQuery(t, c, `{ complete(n: 100) { placement } }`)
	large := priceQuery(t, c, `{ complete(n: 10000) { placement } }`)
	if small.WorkBytes != 100*completeWorkPerRow || large.WorkBytes != 10000*completeWorkPerRow {
		t.Errorf("working memory of N=100 %d, of N=10,000 %d", small.WorkBytes, large.WorkBytes)
	}
	if large.AnswerBytes < 10000*5 {
		t.Errorf("a placement of 10,000 rows priced %d bytes", large.AnswerBytes)
	}
	if huge := priceQuery(t, c, `{ complete(n: 1000000) { placement } }`); huge.Complexity != 1 || huge.WorkBytes != 0 || huge.AnswerBytes >= large.AnswerBytes {
		t.Errorf("complete(n: 1000000) priced %+v, want complexity 1, no work, less than N=10,000's %+v", huge, large)
	}
}
