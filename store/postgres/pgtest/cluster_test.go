package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

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
