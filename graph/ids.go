package graph

import (
	"encoding/base64"
	"fmt"

	"github.com/nqueens/nqueens/internal/apierror"
	"github.com/nqueens/nqueens/solver"
)

// Cursors and global ids are opaque to clients: base64url (no padding) of
// a few bytes. They are versioned and checked on decode, never trusted.
//
//	cursor:     version 1, listing (0 all, 1 unique), n, placement (one byte a row)
//	solution id: version 1, 'S', n, placement
//	board id:    version 1, 'B', n
//
// The cursor of a solution is the same whether its page came from the store
// or from the solver: it names a position by its placement, which is the
// store's key, so a client can keep paging when a board becomes stored.

const idVersion = 1

const (
	idSolution = 'S'
	idBoard    = 'B'
)

var b64 = base64.RawURLEncoding

// EncodeCursor returns the cursor of placement p in the listing of N, of
// its canonical solutions when unique. Every edge of a page has one: it
// allocates only the string.
func EncodeCursor(unique bool, p solver.Placement) string {
	listing := listingByte(unique)
	var raw [3 + solver.MaxSearchN]byte
	var enc [(3 + solver.MaxSearchN + 2) / 3 * 4]byte
	if len(p) > solver.MaxSearchN {
		return b64.EncodeToString(append([]byte{idVersion, listing, byte(len(p))}, p.Bytes()...))
	}
	b := append(raw[:0], idVersion, listing, byte(len(p)))
	for _, c := range p {
		b = append(b, byte(c))
	}
	e := enc[:b64.EncodedLen(len(b))]
	b64.Encode(e, b)
	return string(e)
}

// The listing byte of a cursor.
const (
	listingAll    = 0
	listingUnique = 1
)

func listingByte(unique bool) byte {
	if unique {
		return listingUnique
	}
	return listingAll
}

// decodeCursor reads the cursor given as argument name (after, before)
// for the listing of N (unique: of its canonical solutions). It must be
// one this server writes: the right version, listing and N, and a
// solution of N (canonical for the unique listing).
func decodeCursor(name, arg string, unique bool, n int) (solver.Placement, error) {
	const what = "cursors are the opaque strings read from edges.cursor or pageInfo.startCursor/endCursor of the same listing"
	shown := arg
	if len(shown) > 48 {
		shown = shown[:48] + "…"
	}
	bad := func(format string, a ...any) error {
		return badInput("%s: cursor %q %s; %s", name, shown, fmt.Sprintf(format, a...), what)
	}
	if len(arg) > 2*(3+solver.MaxSearchN) {
		return nil, bad("is not a cursor (too long)")
	}
	b, err := b64.DecodeString(arg)
	if err != nil || len(b) < 3 {
		return nil, bad("is not a cursor")
	}
	switch {
	case b[0] != idVersion:
		return nil, bad("has version %d; this server reads version %d", b[0], idVersion)
	case b[1] > listingUnique:
		return nil, bad("is not a cursor")
	case b[1] != listingByte(unique):
		field := [...]string{listingAll: "solutions", listingUnique: "uniqueSolutions"}
		return nil, bad("belongs to the %s listing, not to %s", field[b[1]], field[listingByte(unique)])
	case int(b[2]) != n:
		return nil, bad("belongs to N=%d, not to N=%d", b[2], n)
	case len(b) != 3+n:
		return nil, bad("is not a cursor of N=%d (it holds %s)", n, plural(len(b)-3, "row"))
	}
	p := solver.FromBytes(b[3:])
	if err := solver.ValidateN(n, p); err != nil {
		return nil, bad("does not name a solution of N=%d", n)
	}
	if unique && !solver.IsCanonical(p) {
		return nil, bad("does not name a canonical solution of N=%d", n)
	}
	return p, nil
}

// SolutionID returns the global id of solution p.
func SolutionID(p solver.Placement) string {
	b := make([]byte, 0, 3+len(p))
	b = append(b, idVersion, idSolution, byte(len(p)))
	b = append(b, p.Bytes()...)
	return b64.EncodeToString(b)
}

// BoardID returns the global id of board N.
func BoardID(n int) string {
	return b64.EncodeToString([]byte{idVersion, idBoard, byte(n)})
}

// globalID is a decoded global id: a board (P nil) or a solution.
type globalID struct {
	Type byte
	N    int
	P    solver.Placement
}

// decodeID reads a global id; a solution id must name a solution.
func decodeID(id string) (globalID, error) {
	const what = "ids are the opaque strings read from Solution.id or Board.id"
	bad := func(why string) error {
		shown := id
		if len(shown) > 48 {
			shown = shown[:48] + "…"
		}
		return badInput("id %q %s; %s", shown, why, what)
	}
	if len(id) > 2*(3+solver.MaxSearchN) {
		return globalID{}, bad("is not an id (too long)")
	}
	b, err := b64.DecodeString(id)
	if err != nil || len(b) < 3 {
		return globalID{}, bad("is not an id")
	}
	if b[0] != idVersion {
		return globalID{}, bad(fmt.Sprintf("has version %d; this server reads version %d", b[0], idVersion))
	}
	n := int(b[2])
	if n < 1 || n > solver.MaxSearchN {
		return globalID{}, bad(fmt.Sprintf("names N=%d; N is 1 to %d", n, solver.MaxSearchN))
	}
	switch b[1] {
	case idBoard:
		if len(b) != 3 {
			return globalID{}, bad("is not an id")
		}
		return globalID{Type: idBoard, N: n}, nil
	case idSolution:
		if len(b) != 3+n {
			return globalID{}, bad("is not an id")
		}
		p := solver.FromBytes(b[3:])
		if err := solver.ValidateN(n, p); err != nil {
			return globalID{}, &apierror.Error{Code: apierror.NotFound, Message: fmt.Sprintf("id %q names no solution of N=%d: %v", id, n, err)}
		}
		return globalID{Type: idSolution, N: n, P: p}, nil
	}
	return globalID{}, bad("is not an id")
}

// BoardOfID returns the N of the board or the solution a global id
// names, false when id is not one.
func BoardOfID(id string) (int, bool) {
	g, err := decodeID(id)
	return g.N, err == nil
}
