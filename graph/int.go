package graph

import (
	"io"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// The Int scalar is bound to these two functions (gqlgen.yml) instead of
// gqlgen's own: the same values, but marshalling an Int allocates nothing
// for the small numbers that pages are made of (a placement is N of them).
// gqlgen's MarshalInt allocates a closure per value; on a page of 20
// solutions of N=16 that was 320 allocations of a request's 1,900.

// MarshalInt writes i as a JSON number.
func MarshalInt(i int) graphql.Marshaler { return intValue(i) }

// UnmarshalInt reads an Int argument as gqlgen does, within Int's 32 bits
// as GraphQL defines it: gqlparser lets a 64-bit variable or literal
// through.
func UnmarshalInt(v any) (int, error) {
	i, err := graphql.UnmarshalInt(v)
	if err != nil {
		return 0, badInput("%s is not allowed; %s", describeValue(v), intAllowed)
	}
	if i < math.MinInt32 || i > math.MaxInt32 {
		return 0, badInput("%d is outside Int's range; %s", i, intAllowed)
	}
	return i, nil
}

// intAllowed says what an Int is.
const intAllowed = "an Int is a whole number from -2147483648 to 2147483647 (32 bits)"

// intValue is an Int being written. Converting one to an interface
// allocates nothing for 0..255 (the runtime keeps those values).
type intValue int

// smallInts are the decimal forms of 0..255.
var smallInts = func() (s [256]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// MarshalGQL implements graphql.Marshaler.
func (i intValue) MarshalGQL(w io.Writer) {
	if i >= 0 && int(i) < len(smallInts) {
		_, _ = io.WriteString(w, smallInts[i])
		return
	}
	_, _ = io.WriteString(w, strconv.Itoa(int(i)))
}
