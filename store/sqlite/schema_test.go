package sqlite_test

import (
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/sqlite/sqlitetest"
	"github.com/nqueens/nqueens/store/storetest"
)

// loadedFile is a database file holding the solutions of N=1..8, opened
// read-only as an analyst would.
func loadedFile(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nqueens.db")
	storetest.LoadRange(t.Context(), t, sqlitetest.Open(t, path), 1, 8)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestSchemaExamples runs every SQLite example of docs/schema.md: each
// must run and return rows.
func TestSchemaExamples(t *testing.T) {
	t.Parallel()
	db := loadedFile(t)
	for _, query := range storetest.SchemaExamples(t, "sqlite") {
		rows, err := db.QueryContext(t.Context(), query)
		if err != nil {
			t.Errorf("%s\n: %v", query, err)
			continue
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n == 0 {
			t.Errorf("%s\n: %d rows, %v; want rows", query, n, err)
		}
		rows.Close()
	}
}

// TestHelpersAgreeWithSolver checks the analyst views against the solver
// for every stored solution of N=8.
func TestHelpersAgreeWithSolver(t *testing.T) {
	t.Parallel()
	db := loadedFile(t)
	rows, err := db.QueryContext(t.Context(), `SELECT d.placement, d.columns, d.board, c.canonical_placement,
		(SELECT json_group_array(symmetry ORDER BY y.k) FROM solution_images AS i JOIN symmetries AS y ON y.name = i.symmetry
		 WHERE i.n = d.n AND i.placement = d.placement),
		(SELECT json_group_array(hex(image) ORDER BY y.k) FROM solution_images AS i JOIN symmetries AS y ON y.name = i.symmetry
		 WHERE i.n = d.n AND i.placement = d.placement),
		(SELECT json_group_array(q.col ORDER BY q.row) FROM queens AS q WHERE q.n = d.n AND q.placement = d.placement)
		FROM solution_details AS d JOIN solution_classes AS c ON c.n = d.n AND c.placement = d.placement
		WHERE d.n = 8 ORDER BY d.placement`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var key, canonical []byte
		var columnsJSON, board, symmetriesJSON, imagesJSON, queensJSON string
		if err := rows.Scan(&key, &columnsJSON, &board, &canonical, &symmetriesJSON, &imagesJSON, &queensJSON); err != nil {
			t.Fatal(err)
		}
		seen++
		p := solver.FromBytes(key)
		var columns []int
		var symmetries, images []string
		for s, v := range map[string]any{columnsJSON: &columns, symmetriesJSON: &symmetries, imagesJSON: &images} {
			if err := json.Unmarshal([]byte(s), v); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
		if solver.Placement(columns).Compare(p) != 0 {
			t.Errorf("%v: columns %v", p, columns)
		}
		if queensJSON != columnsJSON {
			t.Errorf("%v: queens %s, columns %s", p, queensJSON, columnsJSON)
		}
		if want := strings.Join(p.Rows(), "\n"); board != want {
			t.Errorf("%v: board\n%s\nwant\n%s", p, board, want)
		}
		if want := solver.Canonical(p); solver.FromBytes(canonical).Compare(want) != 0 {
			t.Errorf("%v: canonical_placement %v, want %v", p, solver.FromBytes(canonical), want)
		}
		for i, im := range solver.Images(p) {
			if i >= len(images) || symmetries[i] != im.Symmetry.String() || !strings.EqualFold(images[i], hexOf(im.Placement)) {
				t.Errorf("%v: images %v %v, want %v", p, symmetries, images, solver.Images(p))
				break
			}
		}
	}
	if err := rows.Err(); err != nil || uint64(seen) != oeis.MustLoad(t)[8].Total {
		t.Errorf("checked %d solutions of N=8 (%v), want all of them", seen, err)
	}
}

func hexOf(p solver.Placement) string { return strings.ToUpper(hex.EncodeToString(p.Bytes())) }

// TestBackfillSquareCounts runs the backfill statement of docs/schema.md.
func TestBackfillSquareCounts(t *testing.T) {
	t.Parallel()
	st := sqlitetest.OpenTemp(t)
	storetest.CheckBackfill(t, st, "sqlite-backfill", func(stmt string) error {
		_, err := st.Writer().ExecContext(t.Context(), stmt)
		return err
	})
}
