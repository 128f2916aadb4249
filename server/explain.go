package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The checks and rewrites here give the request errors that gqlgen and
// gqlparser raise before execution ("operation  not found", "cannot use
// bool as Int", "invalid APQ extension data") messages that say what was
// wrong and what is allowed. They run in the HTTP transports, which hold
// the request's raw parameters that the messages need.

// checkParams refuses a request gqlgen would refuse with a terse message:
// one without a query (and no persisted query's hash in its stead), or
// with a malformed persistedQuery extension. where says how the query is
// sent (`as the string "query" of the body`, "in the query parameter").
func checkParams(params *graphql.RawParams, where string) *gqlerror.Error {
	_, hasPQ, msg := persistedQueryOf(params)
	if strings.TrimSpace(params.Query) == "" && !hasPQ {
		return requestError("the request has no query: send the GraphQL document " + where +
			`, e.g. "{ count(n: 8) { total } }", or the hash of a persisted query in extensions.persistedQuery`)
	}
	if msg != "" {
		return requestError(msg)
	}
	return nil
}

// explain rewrites the errors of CreateOperationContext that gqlgen and
// gqlparser word tersely: no operation, an unknown operationName, and
// variables that do not fit their types. The rest pass as they are.
func explain(schema *ast.Schema, params *graphql.RawParams, rc *graphql.OperationContext, errs gqlerror.List) gqlerror.List {
	if len(errs) != 1 || rc == nil {
		return errs
	}
	err := errs[0]
	switch {
	case rc.Doc == nil && err.Message == "no operation provided":
		return gqlerror.List{validationError(err, "the document has no operation (a query, mutation or subscription); "+
			"add one, e.g. { count(n: 8) { total } }")}
	case rc.Doc != nil && rc.Operation == nil:
		return gqlerror.List{validationError(err, operationNotFound(rc.Doc.Operations, params.OperationName))}
	case rc.Operation != nil && len(err.Path) >= 2 && err.Path[0] == ast.PathName("variable"):
		if msg := explainVariable(schema, rc.Operation, params.Variables, err.Path[1:]); msg != "" {
			return gqlerror.List{validationError(err, msg)}
		}
	}
	return errs
}

// validationError is err with msg, its code kept.
func validationError(err *gqlerror.Error, msg string) *gqlerror.Error {
	out := &gqlerror.Error{Message: msg, Locations: err.Locations, Path: err.Path, Extensions: map[string]any{}}
	for k, v := range err.Extensions {
		out.Extensions[k] = v
	}
	if out.Extensions["code"] == nil {
		errcode.Set(out, errcode.ValidationFailed)
	}
	return out
}

// operationNotFound says which operations a document has when
// operationName names none of them, or is needed and missing.
func operationNotFound(ops ast.OperationList, name string) string {
	names := make([]string, 0, min(len(ops), 10))
	anonymous := false
	for _, op := range ops {
		switch {
		case op.Name == "":
			anonymous = true
		case len(names) < cap(names):
			names = append(names, quoteShort(op.Name))
		}
	}
	has := "its operations are " + strings.Join(names, ", ")
	if len(ops) > len(names) {
		has += fmt.Sprintf(" (%d in all)", len(ops))
	}
	if name == "" {
		return fmt.Sprintf("the document has %d operations; say which one to run in operationName: %s", len(ops), has)
	}
	if anonymous && len(names) == 0 {
		has = "its one operation has no name: leave operationName out to run it"
	}
	return fmt.Sprintf("operationName %s is not an operation of the document; %s", quoteShort(name), has)
}

// checkIntRange refuses a variable that holds an Int outside Int's 32
// bits, which gqlparser lets through up to 64 bits; GraphQL makes it a
// request error, like any value that does not fit its type.
func checkIntRange(schema *ast.Schema, op *ast.OperationDefinition, vars map[string]any) *gqlerror.Error {
	for _, def := range op.VariableDefinitions {
		val, ok := vars[def.Variable]
		if !ok {
			continue
		}
		if below, found := outsideInt(schema, def.Type, val); found {
			path := append(ast.Path{ast.PathName("variable"), ast.PathName(def.Variable)}, below...)
			err := gqlerror.ErrorPathf(path, "%s", explainVariable(schema, op, vars, path[1:]))
			errcode.Set(err, errcode.ValidationFailed)
			return err
		}
	}
	return nil
}

// outsideInt finds the first Int in val, of type typ, that is outside
// Int's 32 bits, and returns its path below val. It allocates only when
// it finds one: it runs on every request.
func outsideInt(schema *ast.Schema, typ *ast.Type, val any) (ast.Path, bool) {
	if typ.Elem != nil {
		list, ok := val.([]any)
		if !ok {
			list = []any{val} // a single value stands for a list of one
		}
		for i, v := range list {
			if below, found := outsideInt(schema, typ.Elem, v); found {
				return append(ast.Path{ast.PathIndex(i)}, below...), true
			}
		}
		return nil, false
	}
	if typ.NamedType == "Int" {
		var s string
		switch v := val.(type) {
		case json.Number:
			s = string(v)
		case string:
			s = v
		default:
			return nil, false
		}
		i, err := strconv.ParseInt(s, 10, 64)
		return nil, err == nil && (i < math.MinInt32 || i > math.MaxInt32)
	}
	def := schema.Types[typ.NamedType]
	obj, ok := val.(map[string]any)
	if def == nil || def.Kind != ast.InputObject || !ok {
		return nil, false
	}
	for _, f := range def.Fields {
		if v, ok := obj[f.Name]; ok {
			if below, found := outsideInt(schema, f.Type, v); found {
				return append(ast.Path{ast.PathName(f.Name)}, below...), true
			}
		}
	}
	return nil, false
}

// explainVariable says what is wrong with the value at path (the
// variable's name, then list indexes and input fields) and what its type
// allows; "" when the path does not lead anywhere known.
func explainVariable(schema *ast.Schema, op *ast.OperationDefinition, vars map[string]any, path ast.Path) string {
	name, ok := path[0].(ast.PathName)
	def := op.VariableDefinitions.ForName(string(name))
	if !ok || def == nil {
		return ""
	}
	where := "$" + string(name)
	typ := def.Type
	val, present := vars[string(name)]
	for _, el := range path[1:] {
		switch el := el.(type) {
		case ast.PathIndex:
			if typ.Elem == nil {
				return ""
			}
			typ = typ.Elem
			where += "[" + strconv.Itoa(int(el)) + "]"
			if list, isList := val.([]any); isList {
				// A single value stands for a list of one, as GraphQL
				// coerces it.
				val, present = nil, int(el) < len(list)
				if present {
					val = list[el]
				}
			}
		case ast.PathName:
			obj := schema.Types[typ.Name()]
			if obj == nil || obj.Kind != ast.InputObject {
				return ""
			}
			field := obj.Fields.ForName(string(el))
			if field == nil {
				return fmt.Sprintf("variable %s: %s has no field %s; %s", where, obj.Name, quoteShort(string(el)), allowedValues(schema, &ast.Type{NamedType: obj.Name}))
			}
			m, _ := val.(map[string]any)
			val, present = m[string(el)]
			typ = field.Type
			where += "." + string(el)
		}
	}
	allowed := allowedValues(schema, typ)
	switch {
	case !present && len(path) == 1:
		return fmt.Sprintf(`variable %s (%s) has no value; send one in "variables": %s`, where, typ, allowed)
	case !present:
		return fmt.Sprintf("variable %s (%s) is missing; %s", where, typ, allowed)
	case val == nil:
		return fmt.Sprintf("variable %s (%s) cannot be null; %s", where, typ, allowed)
	case typ.Elem == nil && typ.Name() == "Int" && isWholeNumber(val):
		if s, ok := val.(string); ok {
			val = json.Number(s) // an Int written as a string, which gqlparser takes
		}
		return fmt.Sprintf("variable %s: %s is outside Int's range; %s", where, shortValue(val), allowed)
	}
	return fmt.Sprintf("variable %s: %s is not allowed; %s", where, shortValue(val), allowed)
}

// isWholeNumber reports whether v is a JSON number without a fraction,
// or a string of one.
func isWholeNumber(v any) bool {
	var n string
	switch v := v.(type) {
	case json.Number:
		n = string(v)
	case string:
		n = v
	default:
		return false
	}
	if _, err := strconv.ParseInt(n, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return true
	}
	f, err := strconv.ParseFloat(n, 64)
	return f == math.Trunc(f) && (err == nil || math.IsInf(f, 0)) // too large for a float64 is whole too
}

// allowedValues says what values typ allows, as a sentence.
func allowedValues(schema *ast.Schema, typ *ast.Type) string {
	if typ.Elem != nil {
		return fmt.Sprintf("%s takes a list of %s values; %s", typ, typ.Name(), allowedValues(schema, &ast.Type{NamedType: typ.Name()}))
	}
	switch name := typ.Name(); name {
	case "Int":
		return "an Int is a whole number from -2147483648 to 2147483647 (32 bits)"
	case "Float":
		return "a Float is a number"
	case "String":
		return "a String is a JSON string"
	case "Boolean":
		return "a Boolean is true or false"
	case "ID":
		return "an ID is a string or a whole number"
	default:
		def := schema.Types[name]
		if def == nil {
			return ""
		}
		switch def.Kind {
		case ast.Enum:
			values := make([]string, len(def.EnumValues))
			for i, v := range def.EnumValues {
				values[i] = v.Name
			}
			return fmt.Sprintf("a %s is one of the strings %s", name, strings.Join(values, ", "))
		case ast.InputObject:
			fields := make([]string, len(def.Fields))
			for i, f := range def.Fields {
				fields[i] = f.Name + " (" + f.Type.String() + ")"
			}
			return fmt.Sprintf("a %s is an object with the fields %s", name, strings.Join(fields, ", "))
		}
		return fmt.Sprintf("see the description of the scalar %s in the schema", name)
	}
}

// shortValue shows a variable's value as JSON, shortened, and a list or
// an object by its kind only.
func shortValue(v any) string {
	switch v := v.(type) {
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case json.Number:
		return shorten(string(v))
	case string:
		return quoteShort(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return "this value"
}

// quoteShort quotes s, cut to a few dozen characters: messages name what
// the client sent without echoing a large request back.
func quoteShort(s string) string { return strconv.Quote(shorten(s)) }

func shorten(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
