package server

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/solver"
)

// What an answer takes, priced before any resolver runs (answerPricer):
// the bytes of its JSON, and the values in it (each one a marshaller and
// its part of the tree gqlgen builds before it writes a byte), for each
// field from its type and what its arguments say. Sizes of a board's
// forms grow with its N: a size is a function of the N in scope (the
// nearest enclosing field's n argument), kept as coefficients over a few
// functions of N (nBytes), so that a fragment is priced once wherever it
// is spread. The factors were measured on real answers
// (TestAnswerEstimateCalibration in package server).

// nBasis are the functions of N that sizes are made of: 1, N, N², N times
// the digits of N (a list of N numbers below N), and N² times the digits
// of N's solution count (a table of N² counts).
const nBasis = 5

// nBytes is a size as a function of the N in scope: the coefficients of
// the nBasis functions.
type nBytes [nBasis]float64

// basisAt is the nBasis functions at n.
func basisAt(n int) [nBasis]float64 {
	f := float64(n)
	return [nBasis]float64{1, f, f * f, f * float64(digits(n)), f * f * float64(countDigits(n))}
}

func (b nBytes) at(n int) float64 {
	fs := basisAt(n)
	s := 0.0
	for i, c := range b {
		s += c * fs[i]
	}
	return s
}

func (b nBytes) plus(c nBytes) nBytes {
	for i := range b {
		b[i] += c[i]
	}
	return b
}

func (b nBytes) times(k float64) nBytes {
	for i := range b {
		b[i] *= k
	}
	return b
}

func constant(k float64) nBytes { return nBytes{k} }

// digits is how many decimal digits n has.
func digits(n int) int { return len(strconv.Itoa(max(n, 0))) }

// solutionCountDigits are the decimal digits of the number of solutions of
// N (OEIS A000170), for N=1 to 27, the boards whose counts are known: no
// count of one square (a cell of squareCounts) has more. Past them, the
// digits of a uint64.
var solutionCountDigits = [...]int{0, 1, 1, 1, 1, 2, 1, 2, 2, 3, 3, 4, 5, 5, 5, 7, 8, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}

func countDigits(n int) int {
	if n >= 0 && n < len(solutionCountDigits) {
		return solutionCountDigits[n]
	}
	return 20
}

// listingBound bounds how many solutions N has: the largest number of
// its count's digits.
func listingBound(n int) float64 { return math.Pow(10, float64(countDigits(n))) - 1 }

// size is what part of an answer takes: its JSON bytes, its values, and
// the working memory of the fields that compute it (complete's search).
type size struct{ bytes, values, work nBytes }

func (s size) plus(t size) size {
	return size{s.bytes.plus(t.bytes), s.values.plus(t.values), s.work.plus(t.work)}
}

func (s size) times(k float64) size {
	return size{s.bytes.times(k), s.values.times(k), s.work.times(k)}
}

// fixed evaluates s at n: its size where the scope's N is known.
func (s size) fixed(n int) size {
	return size{constant(s.bytes.at(n)), constant(s.values.at(n)), constant(s.work.at(n))}
}

// leaf is the size of a field's value that is a scalar, an enum or a list
// of them: bytes and values as functions of N, and the working memory of
// computing it.
type leaf struct{ bytes, values, work nBytes }

// completeWorkPerRow is the memory complete's search for a board of N
// rows takes, per row: measured at N=10,000 (TestCompleteWorkingMemory).
const completeWorkPerRow = 250

// filterWork is the working memory of a search under a filter (a
// filtered page or count): measured at up to 50 KiB for N=12
// (TestAnswerEstimateCalibration).
const filterWork = 64 << 10

// answerSizes are the sizes of the schema's fields, computed once from the
// schema: explicit for the fields whose values grow with N or list many
// items, by type for the rest, and for introspection from the schema's
// own counts and averages.
type answerSizes struct {
	leaves map[string]leaf    // "Type.field" → its value, for leaves that differ from their type's
	items  map[string]float64 // "Type.field" → items of a list of objects
	byType map[string]float64 // scalar or enum type → bytes of one value
}

// solutionLeaves are the sizes of the forms of a solution of N and of
// what grows with N: measured on real answers, each at least the
// largest seen.
var solutionLeaves = map[string]leaf{
	// "[c0,c1,…]": N numbers below N, their commas, the brackets.
	"Solution.placement":      {bytes: nBytes{2, 1, 0, 1}, values: nBytes{1, 1}},
	"SymmetryImage.placement": {bytes: nBytes{2, 1, 0, 1}, values: nBytes{1, 1}},
	"Completion.placement":    {bytes: nBytes{2, 1, 0, 1}, values: nBytes{1, 1}},
	"Solution.compact":        {bytes: nBytes{2, 1}, values: nBytes{1}},
	// N strings of N characters, quoted, with their commas.
	"Solution.rows": {bytes: nBytes{2, 3, 1}, values: nBytes{1, 1}},
	// N lists of N digits.
	"Solution.matrix": {bytes: nBytes{2, 2, 2}, values: nBytes{1, 1, 1}},
	// N squares: file letters and rank digits (each at most N's digits)
	// and a space.
	"Solution.chess": {bytes: nBytes{2, 1, 0, 2}, values: nBytes{1}},
	// The picture: a fixed part, a queen per row and a path step per dark
	// square, quotes escaped (measured from N=4 to 32, size 4096).
	"Solution.svg": {bytes: nBytes{800, 70, 7.1}, values: nBytes{1}},
	// base64url of 3+N bytes, quoted.
	"Solution.id":                    {bytes: nBytes{7, 1.34}, values: nBytes{1}},
	"SolutionEdge.cursor":            {bytes: nBytes{7, 1.34}, values: nBytes{1}},
	"PageInfo.startCursor":           {bytes: nBytes{7, 1.34}, values: nBytes{1}},
	"PageInfo.endCursor":             {bytes: nBytes{7, 1.34}, values: nBytes{1}},
	"Board.squareCounts":             squareCountsLeaf,
	"Board.uniqueSquareCounts":       squareCountsLeaf,
	"CountResult.squareCounts":       tallyLeaf,
	"CountResult.uniqueSquareCounts": tallyLeaf,
	// Messages the server writes (cut at maxMessage) or stores.
	"Board.error":              {bytes: constant(2 * maxMessage), values: nBytes{1}},
	"FilteredCount.error":      {bytes: constant(2 * maxMessage), values: nBytes{1}},
	"Completion.reason":        {bytes: constant(2 * maxMessage), values: nBytes{1}},
	"ValidationResult.message": {bytes: constant(2 * maxMessage), values: nBytes{1}},
	"Conflict.message":         {bytes: constant(2 * maxMessage), values: nBytes{1}},
	// Up to 100 printable characters, each escaped at worst.
	"Board.requestedBy": {bytes: constant(202), values: nBytes{1}},
	// Up to 64 squares as q12.31, with commas.
	"FilteredCount.filter":  {bytes: constant(2 + 64*7), values: nBytes{1}},
	"SymmetryImage.name":    {bytes: constant(24), values: nBytes{1}},
	"__Type.specifiedByURL": {bytes: constant(128), values: nBytes{1}},
}

// squareCountsLeaf is N rows of N counts, each quoted with its comma.
var squareCountsLeaf = leaf{bytes: nBytes{2, 2, 3, 0, 1}, values: nBytes{1, 1, 1}}

// tallyLeaf is a count's squareCounts, which the solver may tally for
// the request: its answer, and the search's working memory (measured: 11
// KiB a tally up to N=12, TestAnswerEstimateCalibration).
var tallyLeaf = leaf{bytes: squareCountsLeaf.bytes, values: squareCountsLeaf.values, work: nBytes{32 << 10, 0, 64}}

// scalarBytes are the most bytes one value of a scalar takes: an Int, a
// Float, quoted BigInt digits, an RFC 3339 time with nanoseconds.
var scalarBytes = map[string]float64{
	"Int": 11, "Float": 24, "Boolean": 5, "BigInt": 22, "Time": 37, "String": 64, "ID": 64,
}

// itemsPerPage marks the fields of a connection whose value repeats per
// item of its page (the connection's field multiplies them).
func itemsPerPage(obj, field string) bool {
	return obj == "SolutionConnection" && (field == "edges" || field == "nodes")
}

func newAnswerSizes(s *ast.Schema) *answerSizes {
	z := &answerSizes{leaves: map[string]leaf{}, items: map[string]float64{}, byType: map[string]float64{}}
	for k, v := range solutionLeaves {
		z.leaves[k] = v
	}
	for k, v := range scalarBytes {
		z.byType[k] = v
	}
	for _, def := range s.Types {
		if def.Kind == ast.Enum {
			longest := 0
			for _, v := range def.EnumValues {
				longest = max(longest, len(v.Name))
			}
			z.byType[def.Name] = float64(longest + 2)
		}
	}
	z.items["Solution.symmetries"] = 8
	z.introspection(s)
	return z
}

// quoted is the JSON size of a string GraphQL may send, "null" for none.
func quoted(s string) float64 {
	if s == "" {
		return 4
	}
	b, _ := json.Marshal(s)
	return float64(len(b))
}

// mean is a running average.
type mean struct{ sum, n float64 }

func (m *mean) add(v float64) { m.sum += v; m.n++ }

func (m mean) value() float64 {
	if m.n == 0 {
		return 0
	}
	return m.sum / m.n
}

// introspection prices the introspection types from the schema they
// describe: each list as its average length over everything of its kind
// (fields per type, arguments per field, …), each string as its average
// size, so that the whole schema's answer, summed, comes out at its real
// size. A type reference's ofType repeats as often as type references
// are wrapped (non-null, list) on average.
func (z *answerSizes) introspection(s *ast.Schema) {
	var (
		typeName, typeDesc, specified         mean
		fields, inputFields, enumValues       mean // per type
		interfaces, possible                  mean // per type
		fieldName, fieldDesc, fieldDeprecated mean
		args                                  mean // per field
		valueName, valueDesc, valueDefault    mean // __InputValue: arguments and input fields
		enumName, enumDesc                    mean
		dirName, dirDesc, dirArgs, dirLocs    mean
		refs, wrappers                        float64
	)
	ref := func(t *ast.Type) {
		refs++
		for ; t != nil; t = t.Elem {
			if t.NonNull {
				wrappers++
			}
			if t.Elem != nil {
				wrappers++
			}
		}
	}
	value := func(a *ast.ArgumentDefinition) {
		valueName.add(quoted(a.Name))
		valueDesc.add(quoted(a.Description))
		if a.DefaultValue != nil {
			valueDefault.add(quoted(a.DefaultValue.String()))
		} else {
			valueDefault.add(4)
		}
		ref(a.Type)
	}
	for _, def := range s.Types {
		typeName.add(quoted(def.Name))
		typeDesc.add(quoted(def.Description))
		specified.add(4)
		nf, ni, ne := 0.0, 0.0, 0.0
		switch def.Kind {
		case ast.Object, ast.Interface:
			for _, f := range def.Fields {
				if strings.HasPrefix(f.Name, "__") {
					continue
				}
				nf++
				fieldName.add(quoted(f.Name))
				fieldDesc.add(quoted(f.Description))
				fieldDeprecated.add(4)
				args.add(float64(len(f.Arguments)))
				for _, a := range f.Arguments {
					value(a)
				}
				ref(f.Type)
			}
		case ast.InputObject:
			for _, f := range def.Fields {
				ni++
				value(&ast.ArgumentDefinition{Name: f.Name, Description: f.Description, DefaultValue: f.DefaultValue, Type: f.Type})
			}
		case ast.Enum:
			for _, v := range def.EnumValues {
				ne++
				enumName.add(quoted(v.Name))
				enumDesc.add(quoted(v.Description))
			}
		}
		fields.add(nf)
		inputFields.add(ni)
		enumValues.add(ne)
		interfaces.add(float64(len(def.Interfaces)))
		for range def.Interfaces {
			refs++
		}
		np := 0.0
		if def.Kind == ast.Interface || def.Kind == ast.Union {
			np = float64(len(s.GetPossibleTypes(def)))
			refs += np
		}
		possible.add(np)
	}
	for _, d := range s.Directives {
		dirName.add(quoted(d.Name))
		dirDesc.add(quoted(d.Description))
		dirArgs.add(float64(len(d.Arguments)))
		dirLocs.add(float64(len(d.Locations)))
		for _, a := range d.Arguments {
			value(a)
		}
	}
	z.items["__Schema.types"] = float64(len(s.Types))
	z.items["__Schema.directives"] = float64(len(s.Directives))
	z.items["__Type.fields"] = fields.value()
	z.items["__Type.inputFields"] = inputFields.value()
	z.items["__Type.enumValues"] = enumValues.value()
	z.items["__Type.interfaces"] = interfaces.value()
	z.items["__Type.possibleTypes"] = possible.value()
	z.items["__Field.args"] = args.value()
	z.items["__Directive.args"] = dirArgs.value()
	if refs+wrappers > 0 {
		z.items["__Type.ofType"] = wrappers / (refs + wrappers)
	}
	one := func(field string, m mean) {
		z.leaves[field] = leaf{bytes: constant(math.Max(m.value(), 4)), values: nBytes{1}}
	}
	one("__Type.name", typeName)
	one("__Type.description", typeDesc)
	one("__Field.name", fieldName)
	one("__Field.description", fieldDesc)
	one("__Field.deprecationReason", fieldDeprecated)
	one("__InputValue.name", valueName)
	one("__InputValue.description", valueDesc)
	one("__InputValue.defaultValue", valueDefault)
	one("__InputValue.deprecationReason", mean{4, 1})
	one("__EnumValue.name", enumName)
	one("__EnumValue.description", enumDesc)
	one("__EnumValue.deprecationReason", mean{4, 1})
	one("__Directive.name", dirName)
	one("__Directive.description", dirDesc)
	one("__Schema.description", mean{quoted(s.Description), 1})
	locs := z.byType["__DirectiveLocation"] + 1
	z.leaves["__Directive.locations"] = leaf{bytes: constant(2 + dirLocs.value()*locs), values: nBytes{1 + dirLocs.value()}}
}

// leafSize is the size of the value of field name of obj, a leaf of type
// t: its own when listed, else its type's (a list of them counted as
// many as N, a rule missing: TestEveryListFieldIsSized).
func (z *answerSizes) leafSize(obj, name string, t *ast.Type) leaf {
	if l, ok := z.leaves[obj+"."+name]; ok {
		return l
	}
	if name == "__typename" {
		return leaf{bytes: constant(32), values: nBytes{1}}
	}
	one, ok := z.byType[t.Name()]
	if !ok {
		one = z.byType["String"] // a custom scalar: as a string
	}
	if t.Elem != nil {
		return leaf{bytes: nBytes{2, one + 1}, values: nBytes{1, 1}}
	}
	return leaf{bytes: constant(one), values: nBytes{1}}
}

// itemsOf is how many objects field name of obj lists (1 for an object).
func (z *answerSizes) itemsOf(obj, name string, t *ast.Type) float64 {
	if t.Elem == nil {
		return 1
	}
	if k, ok := z.items[obj+"."+name]; ok {
		return k
	}
	return 1
}

// scope is what a field says of the N of its children.
type scope int

const (
	inherit scope = iota // the N of the field's own scope
	fixedN               // its argument n (or its placement's length, its id's N)
	everyN               // every board, N=1 to solver.MaxSearchN (Query.boards)
)

// scopeOf says which N the children of field name of obj are priced at.
// An N that the field refuses is priced at the largest it takes.
func scopeOf(obj, name string, args map[string]any) (scope, int) {
	largest := solver.MaxSearchN
	if obj == "Query" && name == "complete" {
		largest = solver.MaxCompleteN
	}
	clamp := func(n int) int { return min(max(n, 1), largest) }
	switch {
	case obj == "Query" && name == "boards":
		return everyN, 0
	case obj == "Query" && name == "solution":
		if p, ok := args["placement"].([]any); ok {
			return fixedN, clamp(len(p))
		}
		return fixedN, largest
	case obj == "Query" && name == "node":
		if id, ok := args["id"].(string); ok {
			if n, ok := graph.BoardOfID(id); ok {
				return fixedN, clamp(n)
			}
		}
		return fixedN, largest
	}
	if v, ok := args["n"]; ok {
		if n, ok := graph.IntArg(v); ok {
			return fixedN, clamp(n)
		}
		return fixedN, largest
	}
	return inherit, 0
}

// pageItems is how many items a connection's page lists: first or last,
// else the default page size. A size the field refuses lists nothing (the
// field answers the error that says what is allowed).
func pageItems(args map[string]any, defaultSize, maxSize int) float64 {
	for _, k := range []string{"first", "last"} {
		if v, ok := args[k]; ok && v != nil {
			n, ok := graph.IntArg(v)
			if !ok || n < 0 || n > maxSize {
				return 0
			}
			return float64(n)
		}
	}
	return float64(defaultSize)
}
