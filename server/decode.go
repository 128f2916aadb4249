package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Decoding a GraphQL-over-HTTP request (a POST body or a GET query string)
// into gqlgen's RawParams. What does not decode is answered 400 with a
// message that names the parameter and what it must be; it never quotes
// the request or names a Go type, as encoding/json's errors do.

// postShape is the shape of a POST body, for the messages.
const postShape = `one JSON object, {"query": "…", "operationName": "…", "variables": {…}, "extensions": {…}}`

// decodeBody reads a POST body: one JSON object with the parameters.
func decodeBody(body []byte) (*graphql.RawParams, *gqlerror.Error) {
	var params graphql.RawParams
	if err := decodeJSON(body, &params); err != nil {
		return nil, jsonError("the request body", postShape, err)
	}
	normalizeNumbers(params.Variables)
	return &params, nil
}

// decodeQueryString reads a GET request's parameters.
func decodeQueryString(rawQuery string) (*graphql.RawParams, *gqlerror.Error) {
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, requestError("the query string is not valid URL encoding (application/x-www-form-urlencoded): " +
			"escape each parameter's value, as URLSearchParams or url.Values do")
	}
	params := &graphql.RawParams{}
	for _, name := range [...]string{"query", "operationName", "variables", "extensions"} {
		v := values[name]
		switch {
		case len(v) == 0 || v[0] == "":
			continue
		case len(v) > 1:
			return nil, requestError(fmt.Sprintf("the parameter %s is given %d times; give it once", name, len(v)))
		}
		switch name {
		case "query":
			params.Query = v[0]
		case "operationName":
			params.OperationName = v[0]
		case "variables", "extensions":
			var m map[string]any
			if err := decodeJSON([]byte(v[0]), &m); err != nil {
				shape := "a JSON object"
				if name == "variables" {
					shape = `a JSON object of variable values, e.g. {"n": 8}`
				}
				return nil, jsonError("the parameter "+name, shape, err)
			}
			if name == "variables" {
				normalizeNumbers(m)
				params.Variables = m
			} else {
				params.Extensions = m
			}
		}
	}
	return params, nil
}

// decodeJSON decodes one JSON value, its numbers as json.Number, and
// nothing after it.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return errTrailing
	}
	return nil
}

var errTrailing = errors.New("more than one JSON value")

// allowedParam says what each request parameter must be.
var allowedParam = map[string]string{
	"query":         "a string, the GraphQL document",
	"operationName": "a string, the name of the operation to run, or null",
	"variables":     `an object of variable values, e.g. {"n": 8}, or null`,
	"extensions":    "an object, or null",
}

// jsonError explains why what (the request body, or a GET parameter) did
// not decode; shape is what it must look like.
func jsonError(what, shape string, err error) *gqlerror.Error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return requestError(what + " is empty; send " + shape)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return requestError(what + " ends in the middle of its JSON; send " + shape)
	case errors.Is(err, errTrailing):
		return requestError(what + " holds more than one JSON value; send only " + shape)
	case errors.As(err, &syntax):
		return requestError(fmt.Sprintf("%s is not valid JSON (the first mistake is at byte %d); send %s", what, syntax.Offset, shape))
	case errors.As(err, &typ):
		got := jsonKind(typ.Value)
		if allowed, ok := allowedParam[typ.Field]; ok {
			return requestError(fmt.Sprintf("%q must be %s, not %s", typ.Field, allowed, got))
		}
		msg := fmt.Sprintf("%s must be %s, not %s", what, shape, got)
		if got == "a list" && shape == postShape {
			msg += " (batches are not supported: send each request on its own)"
		}
		return requestError(msg)
	}
	return requestError(what + " could not be decoded; send " + shape)
}

// jsonKind names the kind of JSON value encoding/json's UnmarshalTypeError
// reports ("number", "number 5.2", "bool", …) as a user would.
func jsonKind(value string) string {
	switch kind, _, _ := strings.Cut(value, " "); kind {
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return "another kind of value"
}

// requestError is a 400 answer's error: the request is not a well-formed
// GraphQL-over-HTTP request.
func requestError(msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": string(apierror.BadUserInput)}}
}

// normalizeNumbers rewrites the whole numbers among variable values that
// JSON writes with a fraction or an exponent (4.0, 1e9) as plain integers,
// so that they are Ints, as a JavaScript client's JSON.parse would read
// them; gqlparser refuses them otherwise. Beyond 2^53 a float64 no longer
// holds every integer, so larger ones are left as written.
func normalizeNumbers(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				if whole, ok := normalizeNumber(n); ok {
					v[k] = whole
				}
			} else {
				normalizeNumbers(e)
			}
		}
	case []any:
		for i, e := range v {
			if n, ok := e.(json.Number); ok {
				if whole, ok := normalizeNumber(n); ok {
					v[i] = whole
				}
			} else {
				normalizeNumbers(e)
			}
		}
	}
}

// normalizeNumber returns n as a plain integer, and whether that differs
// from n: only then is the value stored again (which allocates).
func normalizeNumber(n json.Number) (json.Number, bool) {
	if !strings.ContainsAny(string(n), ".eE") {
		return n, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return n, false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}
