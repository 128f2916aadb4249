package chunkrows

import (
	"slices"
	"testing"

	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// TestChunkRowsClassify checks the rows' symmetry facts and the chunk
// counts against the solver, for every chunk of N=1..12.
func TestClassify(t *testing.T) {
	for n := 1; n <= 12; n++ {
		chunks, err := solver.Chunks(n, solver.DefaultChunkDepth(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			rows := New(t.Context(), store.ChunkWrite{Chunk: c, Solutions: c.Solutions()})
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
			squares, _ := c.SquareCounts()
			if got := rows.SquareCounts(); !slices.Equal(got.All, squares.All) || !slices.Equal(got.Unique, squares.Unique) {
				t.Fatalf("%v: square counts %+v, the solver's %+v", c, got, squares)
			}
		}
	}
}
