package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// randomDocument writes a document of a few operations and fragments in
// which fragment i spreads only fragments above i (no cycles), fields
// repeat names, aliases and fragments at random, and some selection sets
// nest.
func randomDocument(rng *rand.Rand) string {
	frags := 1 + rng.IntN(4)
	names := []string{"a", "b", "c", "__typename"}
	var set func(depth, from int) string
	set = func(depth, from int) string {
		var b strings.Builder
		b.WriteString("{")
		for range 1 + rng.IntN(4) {
			switch k := rng.IntN(10); {
			case k < 2 && from < frags:
				fmt.Fprintf(&b, " ...F%d", from+rng.IntN(frags-from))
			case k < 3:
				b.WriteString(" ... on T " + set(depth, from))
			default:
				if rng.IntN(3) == 0 {
					fmt.Fprintf(&b, " x%d:", rng.IntN(2))
				}
				b.WriteString(" " + names[rng.IntN(len(names))])
				if depth < 3 && rng.IntN(2) == 0 {
					b.WriteString(" " + set(depth+1, from))
				}
			}
		}
		b.WriteString(" }")
		return b.String()
	}
	var doc strings.Builder
	for i := range 1 + rng.IntN(2) {
		fmt.Fprintf(&doc, "query Q%d %s\n", i, set(0, 0))
	}
	for i := range frags {
		fmt.Fprintf(&doc, "fragment F%d on T %s\n", i, set(0, i+1))
	}
	return doc.String()
}

// expanded is a selection set with every spread replaced by its fragment
// and every inline fragment by its fields: the slow way, for checking.
type expandedField struct {
	response, name string
	sub            []expandedField
}

func expand(doc *ast.QueryDocument, ss ast.SelectionSet) []expandedField {
	var out []expandedField
	for _, sel := range ss {
		switch s := sel.(type) {
		case *ast.Field:
			resp := s.Alias
			if resp == "" {
				resp = s.Name
			}
			out = append(out, expandedField{response: resp, name: s.Name, sub: expand(doc, s.SelectionSet)})
		case *ast.InlineFragment:
			out = append(out, expand(doc, s.SelectionSet)...)
		case *ast.FragmentSpread:
			out = append(out, expand(doc, doc.Fragments.ForName(s.Name).SelectionSet)...)
		}
	}
	return out
}

func countFields(fs []expandedField) int {
	n := len(fs)
	for _, f := range fs {
		n += countFields(f.sub)
	}
	return n
}

func depthOf(fs []expandedField) int {
	d := 0
	for _, f := range fs {
		if !strings.HasPrefix(f.name, "__") {
			d = max(d, 1+depthOf(f.sub))
		}
	}
	return d
}

// pathSquares sums, over the response paths under one root, the square of
// the fields found there.
func pathSquares(fs []expandedField) int {
	total := 0
	var walk func(prefix string, fs []expandedField, counts map[string]int)
	walk = func(prefix string, fs []expandedField, counts map[string]int) {
		for _, f := range fs {
			counts[prefix+"/"+f.response]++
			walk(prefix+"/"+f.response, f.sub, counts)
		}
	}
	counts := map[string]int{}
	walk("", fs, counts)
	for _, c := range counts {
		total += c * c
	}
	return total
}

// spreadSquares sums, over the selection sets of the document as written
// (inline fragments merged into theirs), the square of their spreads.
func spreadSquares(doc *ast.QueryDocument) int {
	total := 0
	// merged calls visit with each selection of ss and of the inline
	// fragments in it.
	var merged func(ss ast.SelectionSet, visit func(ast.Selection))
	merged = func(ss ast.SelectionSet, visit func(ast.Selection)) {
		for _, sel := range ss {
			if in, ok := sel.(*ast.InlineFragment); ok {
				merged(in.SelectionSet, visit)
			} else {
				visit(sel)
			}
		}
	}
	var sets func(ss ast.SelectionSet)
	sets = func(ss ast.SelectionSet) {
		spreads := 0
		merged(ss, func(sel ast.Selection) {
			switch s := sel.(type) {
			case *ast.FragmentSpread:
				spreads++
			case *ast.Field:
				sets(s.SelectionSet)
			}
		})
		if spreads > 1 {
			total += spreads * spreads
		}
	}
	for _, op := range doc.Operations {
		sets(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		sets(f.SelectionSet)
	}
	return total
}

// TestShapeAgreesWithExpansion checks the linear shape against the
// expanded document, on random documents of fragments.
func TestShapeAgreesWithExpansion(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for checked < 1000 {
		q := randomDocument(rng)
		doc, err := parseQuery(q)
		if err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		p := shapeOf(doc)
		if p.fields > 500 {
			continue // the slow expansion below would take long
		}
		checked++
		wantFields, wantDepth, wantComparisons := 0, 0, spreadSquares(doc)
		for _, op := range doc.Operations {
			fs := expand(doc, op.SelectionSet)
			wantFields += countFields(fs)
			wantDepth = max(wantDepth, depthOf(fs))
			wantComparisons += pathSquares(fs)
		}
		for _, f := range doc.Fragments {
			fs := expand(doc, f.SelectionSet)
			wantFields += countFields(fs)
			wantComparisons += pathSquares(fs)
		}
		if p.fields != wantFields || p.depth != wantDepth {
			t.Fatalf("price: %d fields, depth %d; expanded: %d fields, depth %d\n%s", p.fields, p.depth, wantFields, wantDepth, q)
		}
		if got := p.comparisons(doc); got != wantComparisons {
			t.Fatalf("comparisons %d, want %d\n%s", got, wantComparisons, q)
		}
	}
}

// TestShapeOfFragmentDoubling measures the document of fragments that each
// spread the next one twice: its fields double with every level and the
// count saturates, but each fragment is priced once.
func TestShapeOfFragmentDoubling(t *testing.T) {
	t.Parallel()
	for _, levels := range []int{3, 10, 30, 200} {
		doc, err := parseQuery(fragmentDoubling(levels))
		if err != nil {
			t.Fatal(err)
		}
		p := shapeOf(doc)
		// F_levels has 1 field and F_i twice F_{i+1}'s: F_0 has 2^levels;
		// the operation adds its two fields, the definitions 2^(levels+1)-1.
		want := saturated
		if levels < 30 {
			want = 2 + 1<<levels + 1<<(levels+1) - 1
		}
		if p.fields != want {
			t.Errorf("%d levels: %d fields, want %d", levels, p.fields, want)
		}
		if len(p.memo) != levels+1 {
			t.Errorf("%d levels: %d fragments priced, want each once", levels, len(p.memo))
		}
	}
}

// fragmentDoubling is the attack of fragments spreading the next one
// twice, levels deep.
func fragmentDoubling(levels int) string {
	var b strings.Builder
	b.WriteString("query { solutions(n: 8, first: 1) { nodes { ...F0 } } }\n")
	for i := range levels {
		fmt.Fprintf(&b, "fragment F%d on Solution { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Solution { n }\n", levels)
	return b.String()
}

// TestShapeOfCycles: cycles and unknown fragments (which validation
// refuses) are priced without looping.
func TestShapeOfCycles(t *testing.T) {
	t.Parallel()
	doc, err := parseQuery("{ a { ...A } } fragment A on T { b ...B } fragment B on T { c ...A ...Missing }")
	if err != nil {
		t.Fatal(err)
	}
	p := shapeOf(doc)
	if p.fields < 3 || p.comparisons(doc) < 3 {
		t.Errorf("fields %d, comparisons %d", p.fields, p.comparisons(doc))
	}
}

func parseQuery(q string) (*ast.QueryDocument, error) {
	return parser.ParseQuery(&ast.Source{Input: q})
}
