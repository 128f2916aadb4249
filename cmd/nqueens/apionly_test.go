package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// selectOnlyRole makes a role that may log in and read the tables of
// schema, nothing else, with the SQL of docs/OPERATIONS.md ("API-only
// processes"), and returns the URL u as that role. It is dropped when the
// test ends.
func selectOnlyRole(t *testing.T, u, schema string) string {
	t.Helper()
	ctx := context.Background()
	role := pgx.Identifier{"nq_reader_" + strings.TrimPrefix(schema, "nqt_")}.Sanitize()
	s := pgx.Identifier{schema}.Sanitize()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`CREATE ROLE ` + role + ` LOGIN`,
		`GRANT USAGE ON SCHEMA ` + s + ` TO ` + role,
		`GRANT SELECT ON ALL TABLES IN SCHEMA ` + s + ` TO ` + role,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP OWNED BY `+role+`; DROP ROLE `+role); err != nil {
			t.Error(err)
		}
	})
	ru, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	ru.User = url.User(strings.Trim(role, `"`))
	return ru.String()
}

// graphqlAnswer is a GraphQL answer, decoded.
type graphqlAnswer struct {
	Data   map[string]json.RawMessage
	Errors []struct {
		Message    string
		Extensions struct{ Code, Reason string }
	}
}

func (s *serving) query(t *testing.T, token, q string) graphqlAnswer {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": q})
	_, raw := s.request(t, http.MethodPost, "/graphql", string(body), "Authorization", bearer(token))
	var a graphqlAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return a
}

// TestAPIOnlySelectOnlyRole runs serve --api-only as a role that may only
// SELECT: everything stored reads as the reference says (boards, counts,
// pages, ranks, square counts, the export), the mutations are refused
// with UNAVAILABLE and reason API_ONLY, and /readyz is ready. The role
// really cannot write: an INSERT as that role is refused.
func TestAPIOnlySelectOnlyRole(t *testing.T) {
	t.Parallel()
	u, schema := pgtest.Schema(t)
	if r := nqueensEnv(t, []string{"DATABASE_URL=" + u}, "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate up: exit %d\n%s", r.code, r.stderr)
	}
	st := pgtest.Open(t, u)
	storetest.Load(context.Background(), t, st, 8, solver.DefaultChunkDepth(8))
	st.Close()
	readerURL := selectOnlyRole(t, u, schema)

	conn, err := pgx.Connect(context.Background(), readerURL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(context.Background(), `INSERT INTO boards (n) VALUES (9)`)
	conn.Close(context.Background())
	if err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("an INSERT as the SELECT-only role: %v; want permission denied", err)
	}

	const token = "api-only-token"
	s := startServe(t, []string{"DATABASE_URL=" + readerURL, "NQUEENS_ADMIN_TOKEN=" + token}, "--api-only")
	ref := oeis.MustLoad(t)
	a := s.query(t, "", `{
		boards { n state }
		board(n: 8) { state total unique squareCounts }
		count(n: 8) { total unique source state }
		solutions(n: 8, first: 100) { totalCount source edges { node { placement rank } } }
		uniqueSolutions(n: 8, first: 100) { totalCount source }
		solutionAt(n: 8, rank: 92) { placement rank }
	}`)
	if len(a.Errors) > 0 {
		t.Fatalf("reads as the SELECT-only role: %+v", a.Errors)
	}
	var got struct {
		Boards []struct {
			N     int
			State string
		}
		Board struct {
			State, Total, Unique string
			SquareCounts         [][]string
		}
		Count     struct{ Total, Unique, Source, State string }
		Solutions struct {
			TotalCount, Source string
			Edges              []struct {
				Node struct {
					Placement []int
					Rank      string
				}
			}
		}
		UniqueSolutions struct{ TotalCount, Source string }
		SolutionAt      struct {
			Placement []int
			Rank      string
		}
	}
	raw, _ := json.Marshal(a.Data)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	total, unique := strconv.FormatUint(ref[8].Total, 10), strconv.FormatUint(ref[8].Unique, 10)
	if len(got.Boards) < 8 || got.Boards[7].N != 8 || got.Boards[7].State != "DONE" || got.Board.State != "DONE" || got.Board.Total != total ||
		got.Board.Unique != unique || len(got.Board.SquareCounts) != 8 {
		t.Errorf("the board of N=8: %s", raw)
	}
	if got.Count != (struct{ Total, Unique, Source, State string }{total, unique, "STORE", "DONE"}) {
		t.Errorf("count(n: 8): %+v, want %s and %s from the store", got.Count, total, unique)
	}
	if got.Solutions.TotalCount != total || got.Solutions.Source != "STORE" || len(got.Solutions.Edges) != int(ref[8].Total) ||
		got.UniqueSolutions.TotalCount != unique || got.UniqueSolutions.Source != "STORE" {
		t.Errorf("the pages of N=8: %s", raw)
	}
	i := 0
	for p := range solver.All(8) {
		if i >= len(got.Solutions.Edges) {
			break
		}
		e := got.Solutions.Edges[i].Node
		if fmt.Sprint(e.Placement) != fmt.Sprint([]int(p)) || e.Rank != strconv.Itoa(i+1) {
			t.Fatalf("solution %d of N=8 reads %v rank %s, the solver's is %v", i+1, e.Placement, e.Rank, p)
		}
		i++
	}
	if last := got.Solutions.Edges[len(got.Solutions.Edges)-1].Node; fmt.Sprint(got.SolutionAt.Placement) != fmt.Sprint(last.Placement) || got.SolutionAt.Rank != total {
		t.Errorf("solutionAt(rank: %s): %+v, the last page's last is %v", total, got.SolutionAt, last.Placement)
	}

	// The export walks the store too.
	resp, csv := s.request(t, http.MethodGet, "/export/8.csv", "")
	if lines := strings.Count(string(csv), "\n"); resp.StatusCode != http.StatusOK || lines < int(ref[8].Total) {
		t.Errorf("/export/8.csv: %s, %d lines for %d solutions", resp.Status, lines, ref[8].Total)
	}

	for _, mutation := range []string{
		`mutation { precompute(n: 9) { n state } }`,
		`mutation { precomputeCount(n: 8, where: {queens: [{row: 0, col: 0}]}) { state } }`,
	} {
		a := s.query(t, token, mutation)
		if len(a.Errors) != 1 || a.Errors[0].Extensions.Code != "UNAVAILABLE" || a.Errors[0].Extensions.Reason != "API_ONLY" ||
			!strings.Contains(a.Errors[0].Message, "API-only") {
			t.Errorf("%s on an API-only process: %+v; want UNAVAILABLE, reason API_ONLY", mutation, a.Errors)
		}
	}

	if status, ready := s.get(t, "/readyz", token); status != http.StatusOK {
		t.Errorf("/readyz of an API-only process over a current schema: %d %s", status, ready)
	}
	if log := s.stderr.String(); strings.Contains(log, "permission denied") {
		t.Errorf("an API-only process tried to write:\n%s", log)
	}
	s.stop(t)
}

// TestAPIOnlySchemaBehind: an API-only process over a database whose
// schema is older than its binary migrates nothing, says so in its log and
// in /readyz, and still serves.
func TestAPIOnlySchemaBehind(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	if r := nqueensEnv(t, []string{"DATABASE_URL=" + u}, "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate up: exit %d\n%s", r.code, r.stderr)
	}
	if r := nqueensEnv(t, []string{"DATABASE_URL=" + u}, "migrate", "down"); r.code != 0 {
		t.Fatalf("migrate down: exit %d\n%s", r.code, r.stderr)
	}
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := conn.QueryRow(context.Background(), `SELECT version FROM schema_migrations`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	const token = "api-only-token"
	s := startServe(t, []string{"DATABASE_URL=" + u, "NQUEENS_ADMIN_TOKEN=" + token}, "--api-only")
	s.waitFor(t, time.Minute, "the database's schema is not the one this binary reads")
	if status, ready := s.get(t, "/readyz", token); status != http.StatusServiceUnavailable || !strings.Contains(string(ready), "nqueens migrate up") {
		t.Errorf("/readyz over a schema behind: %d %s; want 503 saying to migrate", status, ready)
	}
	var after int64
	if err := conn.QueryRow(context.Background(), `SELECT version FROM schema_migrations`).Scan(&after); err != nil || after != before {
		t.Errorf("the schema went from version %d to %d (%v) under an API-only process", before, after, err)
	}
	conn.Close(context.Background())
	if a := s.query(t, "", `{ count(n: 6) { total } }`); len(a.Errors) > 0 {
		t.Errorf("an API-only process over a schema behind stopped serving: %+v", a.Errors)
	}
	s.stop(t)
}

// TestAPIOnlyUnmigrated: an API-only process over a database no
// migration has touched answers its queries UNAVAILABLE, saying to run
// the migrations (not an internal error, nor "try again shortly").
func TestAPIOnlyUnmigrated(t *testing.T) {
	t.Parallel()
	u, _ := pgtest.Schema(t)
	s := startServe(t, []string{"DATABASE_URL=" + u}, "--api-only")
	s.waitFor(t, time.Minute, "the database's schema is not the one this binary reads")
	a := s.query(t, "", `{ count(n: 6) { total } }`)
	if len(a.Errors) != 1 || a.Errors[0].Extensions.Code != "UNAVAILABLE" || !strings.Contains(a.Errors[0].Message, "nqueens migrate up") {
		t.Errorf("a query over an unmigrated database: %+v; want UNAVAILABLE saying to run nqueens migrate up", a.Errors)
	}
	s.stop(t)
}

// TestAPIOnlyBadUsage: the settings --api-only contradicts, and read
// replicas beside SQLite, are refused before anything starts.
func TestAPIOnlyBadUsage(t *testing.T) {
	t.Parallel()
	sqlite := "NQUEENS_SQLITE_PATH=" + t.TempDir() + "/x.db"
	for _, tt := range []struct {
		env  []string
		args []string
		says string
	}{
		{nil, []string{"--api-only", "--migrate"}, "--api-only (NQUEENS_API_ONLY) applies no migrations"},
		{nil, []string{"--api-only", "--precompute", "1-8"}, "--api-only (NQUEENS_API_ONLY) asks for no boards"},
		{[]string{"NQUEENS_API_ONLY=true", "NQUEENS_PRECOMPUTE=1-8"}, nil, "asks for no boards"},
		{nil, []string{"--read-database-url", "postgres://replica/nqueens"}, "read replicas are Postgres servers"},
	} {
		r := nqueensEnv(t, append([]string{sqlite}, tt.env...), append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.says) {
			t.Errorf("serve %v with %v: exit %d, stderr %q; want exit 2 saying %q", tt.args, tt.env, r.code, r.stderr, tt.says)
		}
	}
}
