package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// loadedSchema is a test schema holding the solutions of N=1..8, and a
// connection that uses it.
func loadedSchema(t *testing.T) (conn *pgx.Conn, schema string) {
	t.Helper()
	u, schema := pgtest.Schema(t)
	storetest.LoadRange(t.Context(), t, pgtest.Open(t, u), 1, 8)
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(t.Context()) })
	return conn, schema
}

// TestSchemaExamples runs every Postgres example of docs/schema.md: each
// must run and return rows.
func TestSchemaExamples(t *testing.T) {
	t.Parallel()
	conn, _ := loadedSchema(t)
	for _, query := range storetest.SchemaExamples(t, "postgres") {
		rows, err := conn.Query(t.Context(), query)
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
	}
}

// TestHelpersAgreeWithSolver checks the analyst functions against the
// solver for every stored solution of N=8, and the views against the
// functions.
func TestHelpersAgreeWithSolver(t *testing.T) {
	t.Parallel()
	conn, _ := loadedSchema(t)
	rows, err := conn.Query(t.Context(), `SELECT placement, placement_array(placement), placement_board(placement),
		canonical_placement(placement), placement_bytes(placement_array(placement)) = placement,
		ARRAY(SELECT symmetry FROM placement_images(placement)),
		ARRAY(SELECT image FROM placement_images(placement)),
		ARRAY(SELECT q.col FROM queens AS q WHERE q.n = s.n AND q.placement = s.placement ORDER BY q.row),
		(SELECT c.canonical_placement FROM solution_classes AS c WHERE c.n = s.n AND c.placement = s.placement),
		ARRAY(SELECT (i.symmetry, i.image)::text FROM solution_images AS i WHERE i.n = s.n AND i.placement = s.placement ORDER BY 1)
			= ARRAY(SELECT (f.symmetry, f.image)::text FROM placement_images(s.placement) AS f ORDER BY 1),
		(SELECT d.columns = placement_array(s.placement) AND d.board = placement_board(s.placement)
		 FROM solution_details AS d WHERE d.n = s.n AND d.placement = s.placement)
		FROM solutions AS s WHERE n = 8 ORDER BY placement`)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for rows.Next() {
		var key, canonical []byte
		var columns []int
		var board string
		var roundTrip bool
		var symmetries []string
		var images [][]byte
		var queens []int
		var classCanonical []byte
		var sameImages, sameDetails bool
		if err := rows.Scan(&key, &columns, &board, &canonical, &roundTrip, &symmetries, &images,
			&queens, &classCanonical, &sameImages, &sameDetails); err != nil {
			t.Fatal(err)
		}
		seen++
		p := solver.FromBytes(key)
		if solver.Placement(columns).Compare(p) != 0 || !roundTrip {
			t.Errorf("%v: placement_array %v, placement_bytes round trip %t", p, columns, roundTrip)
		}
		if want := strings.Join(p.Rows(), "\n"); board != want {
			t.Errorf("%v: placement_board\n%s\nwant\n%s", p, board, want)
		}
		if want := solver.Canonical(p); solver.FromBytes(canonical).Compare(want) != 0 {
			t.Errorf("%v: canonical_placement %v, want %v", p, solver.FromBytes(canonical), want)
		}
		if solver.Placement(queens).Compare(p) != 0 || !bytes.Equal(classCanonical, canonical) || !sameImages || !sameDetails {
			t.Errorf("%v: the views disagree with the functions: queens %v, solution_classes %x (want %x), solution_images the same %t, solution_details the same %t",
				p, queens, classCanonical, canonical, sameImages, sameDetails)
		}
		for i, im := range solver.Images(p) {
			if i >= len(images) || symmetries[i] != im.Symmetry.String() || solver.FromBytes(images[i]).Compare(im.Placement) != 0 {
				t.Errorf("%v: placement_images %v %v, want %v", p, symmetries, images, solver.Images(p))
				break
			}
		}
	}
	if err := rows.Err(); err != nil || uint64(seen) != oeis.MustLoad(t)[8].Total {
		t.Errorf("checked %d solutions of N=8 (%v), want all of them", seen, err)
	}
}

// TestAnalystRole runs the role block of docs/schema.md, with a role and
// schema of the test's own, and checks that the role reads our tables,
// views and functions and cannot write.
func TestAnalystRole(t *testing.T) {
	t.Parallel()
	conn, schema := loadedSchema(t)
	ctx := t.Context()
	role := "nqt_analyst_" + strings.TrimPrefix(schema, "nqt_")
	blocks := storetest.SchemaExamples(t, "postgres-analyst-role")
	setup := strings.NewReplacer("nqueens_analyst", role, "SCHEMA public", "SCHEMA "+schema).Replace(strings.Join(blocks, "\n"))
	if _, err := conn.Exec(ctx, setup); err != nil {
		t.Fatalf("%s\n: %v", setup, err)
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := conn.Exec(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+role); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SELECT count(*) FROM solutions`,
		`SELECT count(*) FROM chunks`,
		`SELECT total_solutions FROM board_counts WHERE n = 8`,
		`SELECT board FROM solution_details WHERE n = 8 LIMIT 1`,
		`SELECT placement_array(canonical_placement(placement_bytes('{7,3,0,2,5,1,6,4}')))`,
	} {
		if _, err := tx.Exec(ctx, "SAVEPOINT q"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Errorf("the analyst cannot read: %s: %v", q, err)
		}
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT q"); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO boards (n) VALUES (20)`,
		`UPDATE boards SET state = 'failed'`,
		`DELETE FROM solutions`,
		`UPDATE chunks SET done_at = NULL`,
		`CREATE TABLE notes (x int)`,
	} {
		if _, err := tx.Exec(ctx, "SAVEPOINT q"); err != nil {
			t.Fatal(err)
		}
		_, err := tx.Exec(ctx, q)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" { // insufficient_privilege
			t.Errorf("the analyst may write: %s: %v, want permission denied", q, err)
		}
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT q"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBackfillSquareCounts runs the backfill statement of docs/schema.md.
func TestBackfillSquareCounts(t *testing.T) {
	t.Parallel()
	st := pgtest.OpenSchema(t)
	storetest.CheckBackfill(t, st, "postgres-backfill", func(stmt string) error {
		_, err := st.Pool().Exec(t.Context(), stmt)
		return err
	})
}
