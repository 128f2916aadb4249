package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

func TestErrorCode(t *testing.T) {
	notFound := Errorf(ENOTFOUND, "N=%d has not been requested", 9)
	cause := errors.New("connection refused")
	for _, c := range []struct {
		err           error
		code, message string
	}{
		{nil, "", ""},
		{notFound, ENOTFOUND, "N=9 has not been requested"},
		{fmt.Errorf("wrapped: %w", notFound), ENOTFOUND, "N=9 has not been requested"},
		{&Error{Code: EUNAVAILABLE, Message: "cannot connect", Err: cause}, EUNAVAILABLE, "cannot connect"},
		{&Error{Code: EINTERNAL, Message: "secret detail"}, EINTERNAL, "internal error"},
		{cause, EINTERNAL, "internal error"},
	} {
		if got := ErrorCode(c.err); got != c.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", c.err, got, c.code)
		}
		if got := ErrorMessage(c.err); got != c.message {
			t.Errorf("ErrorMessage(%v) = %q, want %q", c.err, got, c.message)
		}
	}
	if err := (&Error{Code: EUNAVAILABLE, Message: "m", Err: context.DeadlineExceeded}); !errors.Is(err, context.DeadlineExceeded) {
		t.Error("an Error does not unwrap to its cause")
	}
}

// TestChunkRowsClassify checks the rows' symmetry facts and the chunk
// counts against the solver, for every chunk of N=1..12.
func TestChunkRowsClassify(t *testing.T) {
	for n := 1; n <= 12; n++ {
		chunks, err := solver.Chunks(n, solver.DefaultChunkDepth(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			rows := NewChunkRows(t.Context(), ChunkWrite{Chunk: c, Solutions: c.Solutions()})
			for rows.Next() {
				r := rows.Row()
				p := solver.FromBytes(r.Key)
				if r.Canonical != solver.IsCanonical(p) || r.OrbitSize != solver.OrbitSize(p) {
					t.Fatalf("%v: canonical %t orbit %d, the solver says %t and %d", p, r.Canonical, r.OrbitSize, solver.IsCanonical(p), solver.OrbitSize(p))
				}
			}
			rows.Close()
			if rows.Err() != nil || rows.Counts() != c.Count() {
				t.Fatalf("%v: counts %+v, %v; the solver counts %+v", c, rows.Counts(), rows.Err(), c.Count())
			}
		}
	}
}
