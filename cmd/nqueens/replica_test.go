package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/oeis"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// get answers a GET of path on s's server, with the admin token when not
// "".
func (s *serving) get(t *testing.T, path, token string) (int, []byte) {
	t.Helper()
	resp, body := s.request(t, http.MethodGet, path, "", "Authorization", bearer(token))
	return resp.StatusCode, body
}

// TestServeReadReplica runs an API-only serve with a real streaming
// replica (pg_basebackup of a cluster of the test's own): the pages of a
// done board are read from the replica (its metrics count them), and
// equal the solver's; with the replica stopped they still read whole,
// /readyz stays 200 saying the replica is down (degraded); started again,
// the replica answers again.
func TestServeReadReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primary := pgtest.NewCluster(t)
	primary.Start()
	replica := primary.NewReplica()
	replica.Start()
	if r := nqueensEnv(t, []string{"DATABASE_URL=" + primary.URL}, "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate up: exit %d\n%s", r.code, r.stderr)
	}
	st := pgtest.Open(t, primary.URL)
	storetest.Load(ctx, t, st, 8, solver.DefaultChunkDepth(8))
	st.Close()
	eventually.True(t, time.Minute, func() string {
		conn, err := pgx.Connect(ctx, replica.URL)
		if err != nil {
			return err.Error()
		}
		defer conn.Close(ctx)
		var state string
		if err := conn.QueryRow(ctx, `SELECT state FROM boards WHERE n = 8`).Scan(&state); err != nil || state != "done" {
			return fmt.Sprintf("the replica shows N=8 %q (%v)", state, err)
		}
		return ""
	})

	const token = "replica-token"
	// No caches: every query reads the store.
	s := startServe(t, []string{"DATABASE_URL=" + primary.URL, "NQUEENS_READ_DATABASE_URL=" + replica.URL, "NQUEENS_ADMIN_TOKEN=" + token},
		"--api-only", "--answer-cache-bytes", "0", "--page-cache-bytes", "0")
	total := oeis.MustLoad(t)[8].Total
	readAll := func() {
		t.Helper()
		a := s.query(t, "", `{ solutions(n: 8, first: 100) { totalCount source edges { node { placement } } } }`)
		var got struct {
			Solutions struct {
				TotalCount, Source string
				Edges              []struct{ Node struct{ Placement []int } }
			}
		}
		raw, _ := json.Marshal(a.Data)
		if err := json.Unmarshal(raw, &got); err != nil || len(a.Errors) > 0 {
			t.Fatalf("the pages of N=8: %s %+v", raw, a.Errors)
		}
		if got.Solutions.TotalCount != strconv.FormatUint(total, 10) || got.Solutions.Source != "STORE" || len(got.Solutions.Edges) != int(total) {
			t.Fatalf("the pages of N=8: %s", raw)
		}
		i := 0
		for p := range solver.All(8) {
			if fmt.Sprint(got.Solutions.Edges[i].Node.Placement) != fmt.Sprint([]int(p)) {
				t.Fatalf("solution %d of N=8 reads %v, the solver's is %v", i+1, got.Solutions.Edges[i].Node.Placement, p)
			}
			i++
		}
	}
	metric := func(name string) float64 {
		t.Helper()
		_, body := s.get(t, "/metrics", "")
		return apitest.ParseMetrics(t, body)[name+`{replica="replica 1"}`]
	}
	replicaState := func() string {
		t.Helper()
		code, body := s.get(t, "/readyz", token)
		var r struct{ Checks map[string]string }
		if err := json.Unmarshal(body, &r); err != nil || code != http.StatusOK {
			t.Fatalf("/readyz: %d %s", code, body)
		}
		return r.Checks["replicas"]
	}

	eventually.True(t, time.Minute, func() string {
		if up := metric("nqueens_read_replica_up"); up != 1 {
			return fmt.Sprintf("nqueens_read_replica_up %v", up)
		}
		return ""
	})
	before := metric("nqueens_read_replica_reads_total")
	readAll()
	if after := metric("nqueens_read_replica_reads_total"); after <= before {
		t.Fatalf("the replica answered no read of a board it shows done (%v then %v)", before, after)
	}
	if got := replicaState(); got != "ok" {
		t.Errorf("/readyz's replicas with the replica up: %q", got)
	}

	replica.Stop()
	readAll()
	eventually.True(t, time.Minute, func() string {
		if got := replicaState(); !strings.HasPrefix(got, "degraded: replica 1 down since") {
			return "/readyz's replicas with the replica stopped: " + got
		}
		return ""
	})
	if up := metric("nqueens_read_replica_up"); up != 0 {
		t.Errorf("nqueens_read_replica_up %v with the replica stopped", up)
	}
	down := metric("nqueens_read_replica_reads_total")
	readAll()

	replica.Start()
	eventually.True(t, time.Minute, func() string {
		if got := replicaState(); got != "ok" {
			return "/readyz's replicas with the replica started again: " + got
		}
		return ""
	})
	readAll()
	if after := metric("nqueens_read_replica_reads_total"); after <= down {
		t.Fatalf("the replica, started again, answered no read (%v then %v)", down, after)
	}
	s.stop(t)
}
