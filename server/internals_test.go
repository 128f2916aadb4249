package server

// What the tests of package server_test read of the server's insides.

// DocumentCost is what the query cache counts a parsed document at.
func DocumentCost(query string) int64 { return documentCost(query, nil) }

// RequestOverhead is what admission holds for a request besides its body.
const RequestOverhead = requestOverhead
