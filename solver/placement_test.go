package solver_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

func TestValidateNamesTheFirstConflict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n       int
		p       solver.Placement
		kind    solver.ConflictKind
		rowA    int
		rowB    int
		message string
	}{
		{8, solver.Placement{0, 4, 7, 5, 2, 6, 1, 4}, solver.SameColumn, 1, 7, "rows 1 and 7 share column 4"},
		{4, solver.Placement{0, 1, 3, 2}, solver.SameDiagonal, 0, 1, "rows 0 and 1 share a diagonal"},
		{4, solver.Placement{1, 0, 3, 2}, solver.SameAntiDiagonal, 0, 1, "rows 0 and 1 share an anti-diagonal"},
		{6, solver.Placement{1, 3, 5, 0, 2, 0}, solver.SameColumn, 3, 5, "rows 3 and 5 share column 0"},
		{8, solver.Placement{0, 2, 4, 6, 1, 3, 5, 7}, solver.SameDiagonal, 0, 7, "rows 0 and 7 share a diagonal"},
	}
	for _, tt := range tests {
		err := solver.ValidateN(tt.n, tt.p)
		var c *solver.Conflict
		if !errors.As(err, &c) {
			t.Errorf("%v: got %v, want a conflict", tt.p, err)
			continue
		}
		if c.Kind != tt.kind || c.RowA != tt.rowA || c.RowB != tt.rowB {
			t.Errorf("%v: got %+v, want %s between rows %d and %d", tt.p, *c, tt.kind, tt.rowA, tt.rowB)
		}
		if !strings.HasPrefix(err.Error(), tt.message) {
			t.Errorf("%v: message %q, want it to start with %q", tt.p, err, tt.message)
		}
	}
}

func TestValidateRejectsMalformedPlacements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n       int
		p       solver.Placement
		message string
	}{
		{4, solver.Placement{1, 3, 0}, "needs 4 columns, got 3"},
		{4, solver.Placement{1, 3, 0, 2, 1}, "needs 4 columns, got 5"},
		{4, solver.Placement{1, 3, 0, 4}, "row 3: column 4 is outside 0..3"},
		{4, solver.Placement{-1, 3, 0, 2}, "row 0: column -1 is outside 0..3"},
		{0, solver.Placement{}, "at least 1"},
	}
	for _, tt := range tests {
		err := solver.ValidateN(tt.n, tt.p)
		var shape *solver.ShapeError
		if !errors.As(err, &shape) || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("ValidateN(%d, %v) = %v, want a shape error containing %q", tt.n, tt.p, err, tt.message)
		}
	}
	if err := solver.Validate(solver.Placement{1, 3, 0, 2}); err != nil {
		t.Errorf("a solution was rejected: %v", err)
	}
}

func TestBytesRoundTripKeepsTheOrder(t *testing.T) {
	t.Parallel()
	var prev []byte
	for p := range solver.All(9) {
		b := p.Bytes()
		if back := solver.FromBytes(b); back.Compare(p) != 0 {
			t.Fatalf("%v came back as %v", p, back)
		}
		if prev != nil && string(prev) >= string(b) {
			t.Fatalf("byte order breaks at %v", p)
		}
		prev = b
	}
}
