package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/graph"
	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/server"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// BenchmarkSolutionsN16 is the GraphQL API's figure in docs/PERFORMANCE.md
// ("GraphQL API"): solutions(n: 16, first: 100) at the start, the middle
// and the end of the 14,772,512 solutions, through the real HTTP handler
// (httptest on a loopback port, real HTTP requests) over Postgres, with
// the page cache off so that every request reads the store. N=16 is
// stored once per run through the store's bulk path (enumerated with all
// cores, then PlanBoard, WriteChunk per chunk, FinishBoard) and vacuumed:
// a minute or two, so it runs only with NQUEENS_BENCH_N16=1.
//
// "page" asks for each solution's cursor and placement; "ranked" adds its
// rank (one more store query per page: Rank of the first item). Reports
// p50 and p99 of the request time, in ms.
func BenchmarkSolutionsN16(b *testing.B) {
	if os.Getenv("NQUEENS_BENCH_N16") != "1" {
		b.Skip("set NQUEENS_BENCH_N16=1 to run the N=16 benchmarks (they store N=16 first: minutes)")
	}
	ctx := context.Background()
	u, _ := pgtest.Schema(b)
	// As nqueens serve opens it (cmd/nqueens, genericPlans).
	st := pgtest.Open(b, u+"&plan_cache_mode=force_generic_plan")
	func() { // the enumerated chunks (240 MB) go once stored
		chunks, err := storetest.ComputeChunks(16, solver.DefaultChunkDepth(16))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		storetest.LoadComputed(b, st, chunks)
		b.Logf("stored N=16 in %s", time.Since(start).Round(time.Millisecond))
	}()
	vacuum(b, u)

	srv := apitest.Setup(b, func(c *server.Config) {
		c.Graph.Boards, c.Graph.Stored = st, st
		c.Graph.PageCacheBytes = 0
		c.Logger = slog.New(slog.DiscardHandler)
	})
	const total = 14_772_512
	cursorAt := func(rank uint64) any {
		sol, err := st.SolutionAt(ctx, 16, rank, false)
		if err != nil {
			b.Fatal(err)
		}
		return graph.EncodeCursor(false, sol.Placement)
	}
	depths := []struct {
		name  string
		after any
	}{
		{"start", nil},
		{"middle", cursorAt(total / 2)},
		{"end", cursorAt(total - 100)}, // the last page
	}
	for _, shape := range []struct{ name, fields string }{
		{"page", `cursor node { placement }`},
		{"ranked", `cursor node { placement rank }`},
	} {
		query := `query($after: String) { solutions(n: 16, first: 100, after: $after) {
			totalCount edges { ` + shape.fields + ` } pageInfo { hasNextPage endCursor } } }`
		for _, d := range depths {
			b.Run(shape.name+"/"+d.name, func(b *testing.B) {
				body, err := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"after": d.after}})
				if err != nil {
					b.Fatal(err)
				}
				post := func() time.Duration {
					start := time.Now()
					resp, err := srv.HTTP.Post(srv.URL, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Fatal(err)
					}
					raw, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					elapsed := time.Since(start)
					if err != nil || resp.StatusCode != http.StatusOK || bytes.Contains(raw, []byte(`"errors"`)) ||
						bytes.Count(raw, []byte(`"cursor"`)) != 100 {
						b.Fatalf("status %d, %v: %.300s", resp.StatusCode, err, raw)
					}
					return elapsed
				}
				for range 200 { // warm: connections, statement caches, buffers
					post()
				}
				var times []time.Duration
				for b.Loop() {
					times = append(times, post())
				}
				slices.Sort(times)
				q := func(f float64) float64 {
					return float64(times[int(f*float64(len(times)-1))]) / float64(time.Millisecond)
				}
				b.ReportMetric(q(0.50), "p50-ms")
				b.ReportMetric(q(0.99), "p99-ms")
			})
		}
	}
}

// vacuum brings the table's statistics and visibility map up to date, as
// autovacuum would after a load.
func vacuum(b *testing.B, url string) {
	b.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "VACUUM (ANALYZE) solutions"); err != nil {
		b.Fatal(err)
	}
}
