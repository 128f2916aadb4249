package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
)

// TestCluster starts, stops and restarts a cluster of the test's own and
// checks that it answers only while started.
func TestCluster(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t)
	ctx := context.Background()
	if conn, err := pgx.Connect(ctx, c.URL); err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a cluster not started yet")
	}
	for range 2 {
		c.Start()
		conn, err := pgx.Connect(ctx, c.URL)
		if err != nil {
			t.Fatalf("connecting to the started cluster: %v", err)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("SELECT 1: %d, %v", one, err)
		}
		conn.Close(ctx)
		c.Stop()
		if conn, err := pgx.Connect(ctx, c.URL); err == nil {
			conn.Close(ctx)
			t.Fatal("connected to a stopped cluster")
		}
	}
}

// TestReplica makes a streaming replica of a cluster and checks that what
// is written on the primary shows on the replica, which refuses writes.
func TestReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	primary := pgtest.NewCluster(t)
	primary.Start()
	replica := primary.NewReplica()
	replica.Start()
	pc, err := pgx.Connect(ctx, primary.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	if _, err := pc.Exec(ctx, `CREATE TABLE t (v int); INSERT INTO t VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	rc, err := pgx.Connect(ctx, replica.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close(ctx)
	var v int
	eventually.True(t, time.Minute, func() string {
		if err := rc.QueryRow(ctx, `SELECT v FROM t`).Scan(&v); err != nil {
			return "the replica does not show the row: " + err.Error()
		}
		return ""
	})
	if v != 42 {
		t.Fatalf("the replica reads %d, the primary wrote 42", v)
	}
	if _, err := rc.Exec(ctx, `INSERT INTO t VALUES (1)`); err == nil {
		t.Fatal("the replica took a write")
	}
}
