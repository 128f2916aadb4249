package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
	"github.com/nqueens/nqueens/store/postgres"
	"github.com/nqueens/nqueens/store/postgres/pgtest"
	"github.com/nqueens/nqueens/store/storetest"
)

// replicaSetup is a primary cluster, real streaming replicas of it
// (pg_basebackup), the store on the primary and the replicated reader
// over them all.
type replicaSetup struct {
	primary *pgtest.Cluster
	// replica is the first replica, the only one unless asked for more.
	replica  *pgtest.Cluster
	replicas []*pgtest.Cluster
	store    *postgres.Store
	reads    *postgres.Replicated
}

// newReplicaSetup makes a primary and count replicas of it.
func newReplicaSetup(t *testing.T, count int) *replicaSetup {
	t.Helper()
	s := &replicaSetup{primary: pgtest.NewCluster(t)}
	s.primary.Start()
	var cfgs []postgres.Config
	for range count {
		replica := s.primary.NewReplica()
		replica.Start()
		s.replicas = append(s.replicas, replica)
		cfg := postgres.DefaultConfig()
		cfg.URL = replica.URL
		cfgs = append(cfgs, cfg)
	}
	s.replica = s.replicas[0]
	s.store = pgtest.Open(t, s.primary.URL)
	r, err := postgres.OpenReplicated(t.Context(), s.store, postgres.ReplicasConfig{Replicas: cfgs, Recheck: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s.reads = r
	return s
}

// plan plans board n at depth 1 and returns its chunks.
func (s *replicaSetup) plan(t *testing.T, n int) []solver.Chunk {
	t.Helper()
	if _, _, err := s.store.PlanBoard(t.Context(), store.BoardPlan{N: n, ChunkDepth: 1, StoresSolutions: true, SolverVersion: storetest.SolverVersion}, nil); err != nil {
		t.Fatal(err)
	}
	chunks, err := solver.Chunks(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	return chunks
}

func (s *replicaSetup) write(t *testing.T, chunks ...solver.Chunk) {
	t.Helper()
	for _, c := range chunks {
		if _, err := s.store.WriteChunk(t.Context(), store.ChunkWrite{Chunk: c, Solutions: c.Solutions()}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// compute plans, writes and finishes board n on the primary.
func (s *replicaSetup) compute(t *testing.T, n int) {
	t.Helper()
	s.write(t, s.plan(t, n)...)
	if _, err := s.store.FinishBoard(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

// onReplica runs a query on the (first) replica itself (its own
// connection, not the reader's), as an operator would in psql.
func (s *replicaSetup) onReplica(t *testing.T, sql string, dest ...any) error {
	t.Helper()
	return onCluster(t, s.replica, sql, dest...)
}

func onCluster(t *testing.T, c *pgtest.Cluster, sql string, dest ...any) error {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), c.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(t.Context()))
	if len(dest) == 0 {
		_, err = conn.Exec(t.Context(), sql)
		return err
	}
	return conn.QueryRow(t.Context(), sql).Scan(dest...)
}

// waitReplicaState waits until every replica shows board n in state.
func (s *replicaSetup) waitReplicaState(t *testing.T, n int, state store.BoardState) {
	t.Helper()
	for i, c := range s.replicas {
		eventually.True(t, time.Minute, func() string {
			var got string
			if err := onCluster(t, c, fmt.Sprintf(`SELECT state FROM boards WHERE n = %d`, n), &got); err != nil {
				return fmt.Sprintf("replica %d does not show N=%d: %v", i+1, n, err)
			}
			if got != string(state) {
				return fmt.Sprintf("replica %d shows N=%d %s, not %s yet", i+1, n, got, state)
			}
			return ""
		})
	}
}

// replicaReads is how many reads the (first) replica answered.
func (s *replicaSetup) replicaReads() int64 { return s.reads.Replicas()[0].Reads }

// waitUp waits until the reader has every replica up, or down.
func (s *replicaSetup) waitUp(t *testing.T, up bool) {
	t.Helper()
	eventually.True(t, time.Minute, func() string {
		for _, st := range s.reads.Replicas() {
			if st.Up != up {
				return fmt.Sprintf("%s's status is %+v, want up %v", st.Name, st, up)
			}
		}
		return ""
	})
}

// allPages reads every page of n (7 a page, the last one short) through r.
func allPages(t *testing.T, r store.Reader, n int, unique bool) []solver.Placement {
	t.Helper()
	var out []solver.Placement
	var cursor solver.Placement
	for {
		page, err := r.Page(t.Context(), store.PageRequest{N: n, Unique: unique, Cursor: cursor, Limit: 7})
		if err != nil {
			t.Fatalf("N=%d unique %v after %v: %v", n, unique, cursor, err)
		}
		for _, s := range page {
			out = append(out, s.Placement)
		}
		if len(page) < 7 {
			return out
		}
		cursor = page[len(page)-1].Placement
	}
}

// checkReads checks that the pages, counts and ranks of board n read
// through r are the solver's, and the primary's.
func checkReads(t *testing.T, r store.Reader, primary store.Reader, n int) {
	t.Helper()
	ctx := t.Context()
	for _, unique := range []bool{false, true} {
		all := solver.All(n)
		if unique {
			all = solver.AllUnique(n)
		}
		var want []solver.Placement
		for p := range all {
			want = append(want, slices.Clone(p)) // the solver reuses p
		}
		got := allPages(t, r, n, unique)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("N=%d unique %v: %d solutions read, the solver has %d", n, unique, len(got), len(want))
		}
		var walked []solver.Placement
		err := r.Walk(ctx, store.WalkRequest{N: n, Unique: unique}, func(key []byte) error {
			walked = append(walked, solver.FromBytes(key))
			return nil
		})
		if err != nil || !slices.EqualFunc(walked, want, slices.Equal) {
			t.Fatalf("N=%d unique %v: the walk read %d solutions (%v), the solver has %d", n, unique, len(walked), err, len(want))
		}
		for i, p := range want {
			rank := uint64(i + 1)
			at, err := r.SolutionAt(ctx, n, rank, unique)
			if err != nil || !slices.Equal(at.Placement, p) {
				t.Fatalf("N=%d unique %v: solution #%d is %v (%v), want %v", n, unique, rank, at.Placement, err, p)
			}
			got, err := r.Rank(ctx, n, p, unique)
			if err != nil || got != rank {
				t.Fatalf("N=%d unique %v: rank of %v is %d (%v), want %d", n, unique, p, got, err, rank)
			}
		}
	}
	got, err := r.Board(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	want, err := primary.Board(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.Done || got.Counts == nil || *got.Counts != *want.Counts {
		t.Fatalf("N=%d: the board reads %s %+v, the primary has %s %+v", n, got.State, got.Counts, want.State, want.Counts)
	}
	gotSquares, err := r.SquareCounts(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	wantSquares, err := primary.SquareCounts(ctx, n)
	if err != nil || !slices.Equal(gotSquares.All, wantSquares.All) {
		t.Fatalf("N=%d: square counts %v, the primary's %v (%v)", n, gotSquares.All, wantSquares.All, err)
	}
}

// TestReplicatedReads reads done boards from two real streaming
// replicas: pages, walks, ranks, solutions by rank, counts and square
// counts equal the solver's and the primary's, and each board's reads
// were answered by one replica, each replica answering its boards.
func TestReplicatedReads(t *testing.T) {
	t.Parallel()
	s := newReplicaSetup(t, 2)
	for _, n := range []int{6, 7, 8} {
		s.compute(t, n)
	}
	s.waitUp(t, true)
	s.waitReplicaState(t, 8, store.Done)
	for _, n := range []int{6, 7, 8} {
		before := s.reads.Replicas()
		checkReads(t, s.reads, s.store, n)
		after := s.reads.Replicas()
		answered := 0
		for i := range after {
			if after[i].Reads > before[i].Reads {
				answered++
			}
		}
		if answered != 1 {
			t.Errorf("the reads of N=%d were answered by %d replicas, want one: %+v then %+v", n, answered, before, after)
		}
	}
	for _, st := range s.reads.Replicas() {
		if st.Reads == 0 {
			t.Errorf("%s answered no read of three done boards", st.Name)
		}
	}
	// Bad input is refused as the primary refuses it, whichever replica
	// takes it.
	for _, n := range []int{-1, 0, 99} {
		_, err := s.reads.Page(t.Context(), store.PageRequest{N: n, Limit: 1})
		_, want := s.store.Page(t.Context(), store.PageRequest{N: n, Limit: 1})
		if err == nil || fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("a page of N=%d: %v; the primary says %v", n, err, want)
		}
	}
	if _, err := s.reads.Board(t.Context(), 9); err == nil {
		t.Fatal("N=9 was never asked for, but reads as a board")
	}
}

// waitCaughtUp waits until every replica has replayed what the primary
// has written so far.
func (s *replicaSetup) waitCaughtUp(t *testing.T) {
	t.Helper()
	var lsn string
	if err := onCluster(t, s.primary, `SELECT pg_current_wal_lsn()::text`, &lsn); err != nil {
		t.Fatal(err)
	}
	for i, c := range s.replicas {
		eventually.True(t, time.Minute, func() string {
			var caught bool
			if err := onCluster(t, c, `SELECT pg_last_wal_replay_lsn() >= '`+lsn+`'::pg_lsn`, &caught); err != nil || !caught {
				return fmt.Sprintf("replica %d has not replayed up to %s (%v)", i+1, lsn, err)
			}
			return ""
		})
	}
}

// TestReplicatedAnswersAsThePrimary calls every method of store.Reader
// through the replicated reader, with a replica that has caught up, and
// directly on the primary's store: the answers and errors are the same
// (a done board, a pending one, an unknown one, a rank past the last, a
// placement that is no solution, a filtered count done and one never
// asked for), and the replica answered some of them.
func TestReplicatedAnswersAsThePrimary(t *testing.T) {
	t.Parallel()
	s := newReplicaSetup(t, 1)
	ctx := t.Context()
	counted := solver.Filter{Queens: []solver.Square{{Row: 0, Col: 1}}}
	never := solver.Filter{Queens: []solver.Square{{Row: 1, Col: 1}}}
	storetest.Load(ctx, t, s.store, 6, 1)
	storetest.LoadFilteredCount(ctx, t, s.store, 6, counted)
	if _, _, err := s.store.RequestBoard(ctx, store.BoardRequest{N: 5}); err != nil {
		t.Fatal(err)
	}
	s.waitUp(t, true)
	s.waitCaughtUp(t)
	calls := func(r store.Reader) map[string][]func() (any, error) {
		return map[string][]func() (any, error){
			"Board": {
				func() (any, error) { return r.Board(ctx, 6) },
				func() (any, error) { return r.Board(ctx, 5) },
				func() (any, error) { return r.Board(ctx, 7) },
			},
			"Boards": {func() (any, error) { return r.Boards(ctx) }},
			"Page": {
				func() (any, error) { return r.Page(ctx, store.PageRequest{N: 6, Limit: 3}) },
				func() (any, error) { return r.Page(ctx, store.PageRequest{N: 5, Limit: 3}) },
			},
			"SolutionAt": {
				func() (any, error) { return r.SolutionAt(ctx, 6, 2, false) },
				func() (any, error) { return r.SolutionAt(ctx, 6, 5, false) },
			},
			"Rank": {
				func() (any, error) { return r.Rank(ctx, 6, solver.Placement{4, 2, 0, 5, 3, 1}, false) },
				func() (any, error) { return r.Rank(ctx, 6, solver.Placement{0, 1, 2, 3, 4, 5}, false) },
			},
			"SquareCounts": {
				func() (any, error) { return r.SquareCounts(ctx, 6) },
				func() (any, error) { return r.SquareCounts(ctx, 5) },
			},
			"Walk": {func() (any, error) {
				var keys [][]byte
				err := r.Walk(ctx, store.WalkRequest{N: 6, Filter: counted}, func(p []byte) error {
					keys = append(keys, slices.Clone(p))
					return nil
				})
				return keys, err
			}},
			"FilteredCount": {
				func() (any, error) { return r.FilteredCount(ctx, 6, counted) },
				func() (any, error) { return r.FilteredCount(ctx, 6, never) },
			},
			"FilteredCountChunks": {
				func() (any, error) { return r.FilteredCountChunks(ctx, 6, counted) },
				func() (any, error) { return r.FilteredCountChunks(ctx, 6, never) },
			},
			"Ping": {func() (any, error) { return nil, r.Ping(ctx) }},
		}
	}
	replicated, direct := calls(s.reads), calls(s.store)
	if n, want := len(replicated), reflect.TypeFor[store.Reader]().NumMethod(); n != want {
		t.Fatalf("the test calls %d methods of store.Reader's %d", n, want)
	}
	for name, cs := range replicated {
		for i, call := range cs {
			got, gotErr := call()
			want, wantErr := direct[name][i]()
			if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s #%d through the replicated reader: %+v, %v; the primary answers %+v, %v", name, i+1, got, gotErr, want, wantErr)
			}
		}
	}
	if s.replicaReads() == 0 {
		t.Error("the replica answered none of the reads")
	}
}

// TestReplicaLagging finishes a board on the primary while the replica's
// replay is paused: the board reads done, with every page, from the
// primary; once the replica replays it, from the replica.
func TestReplicaLagging(t *testing.T) {
	t.Parallel()
	s := newReplicaSetup(t, 1)
	const n = 8
	chunks := s.plan(t, n)
	s.write(t, chunks[:len(chunks)-1]...)
	s.waitUp(t, true)
	eventually.True(t, time.Minute, func() string {
		var done int
		if err := s.onReplica(t, fmt.Sprintf(`SELECT chunks_done FROM boards WHERE n = %d`, n), &done); err != nil || done != len(chunks)-1 {
			return fmt.Sprintf("the replica shows %d chunks done (%v), want %d", done, err, len(chunks)-1)
		}
		return ""
	})
	if err := s.onReplica(t, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, time.Minute, func() string {
		var state string
		if err := s.onReplica(t, `SELECT pg_get_wal_replay_pause_state()`, &state); err != nil || state != "paused" {
			return fmt.Sprintf("replay is %q (%v), not paused yet", state, err)
		}
		return ""
	})
	s.write(t, chunks[len(chunks)-1])
	if _, err := s.store.FinishBoard(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := s.onReplica(t, fmt.Sprintf(`SELECT state FROM boards WHERE n = %d`, n), &state); err != nil || state != string(store.Running) {
		t.Fatalf("with its replay paused, the replica shows N=%d %q (%v), not running: the lag is not real", n, state, err)
	}
	before := s.replicaReads()
	checkReads(t, s.reads, s.store, n)
	if got := s.replicaReads(); got != before {
		t.Fatalf("the replica answered %d reads of a board it does not show done", got-before)
	}
	if err := s.onReplica(t, `SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	s.waitReplicaState(t, n, store.Done)
	checkReads(t, s.reads, s.store, n)
	if s.replicaReads() == before {
		t.Fatal("once it replayed the board, the replica answered none of its reads")
	}
}

// TestReplicaStoppedAndStarted stops the replica: reads keep working from
// the primary, the replica is marked down; started again, it is marked up
// and answers again.
func TestReplicaStoppedAndStarted(t *testing.T) {
	t.Parallel()
	s := newReplicaSetup(t, 1)
	const n = 8
	s.compute(t, n)
	s.waitUp(t, true)
	s.waitReplicaState(t, n, store.Done)
	checkReads(t, s.reads, s.store, n)

	s.replica.Stop()
	checkReads(t, s.reads, s.store, n)
	s.waitUp(t, false)
	if st := s.reads.Replicas()[0]; st.Err == nil || st.DownSince.IsZero() {
		t.Fatalf("a replica down says neither why nor since when: %+v", st)
	}
	down := s.replicaReads()
	checkReads(t, s.reads, s.store, n)
	if s.replicaReads() != down {
		t.Fatal("a replica marked down answered reads")
	}

	s.replica.Start()
	s.waitUp(t, true)
	checkReads(t, s.reads, s.store, n)
	if s.replicaReads() == down {
		t.Fatal("the replica, up again, answered none of the reads")
	}
}

// BenchmarkReplicatedPage times pages of 20 of a done N=10 at random
// cursors, read from the primary's store directly (primary) and through
// the replicated reader from its replica (replica): what the routing adds
// to a page (docs/SCALING.md, "Read replicas").
func BenchmarkReplicatedPage(b *testing.B) {
	primary := pgtest.NewCluster(b)
	primary.Start()
	replica := primary.NewReplica()
	replica.Start()
	st := pgtest.Open(b, primary.URL)
	storetest.Load(b.Context(), b, st, 10, solver.DefaultChunkDepth(10))
	cfg := postgres.DefaultConfig()
	cfg.URL = replica.URL
	r, err := postgres.OpenReplicated(b.Context(), st, postgres.ReplicasConfig{Replicas: []postgres.Config{cfg}, Recheck: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var all []solver.Placement
	for p := range solver.All(10) {
		all = append(all, slices.Clone(p))
	}
	eventually.True(b, time.Minute, func() string {
		if st := r.Replicas()[0]; !st.Up {
			return "the replica is not up"
		}
		if _, err := r.Page(b.Context(), store.PageRequest{N: 10, Limit: 1}); err != nil {
			return err.Error()
		}
		if r.Replicas()[0].Reads == 0 {
			return "the replica does not show N=10 done yet"
		}
		return ""
	})
	for _, bench := range []struct {
		name   string
		reader store.Reader
	}{{"primary", st}, {"replica", r}} {
		b.Run(bench.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			before := r.Replicas()[0].Reads
			for b.Loop() {
				cursor := all[rng.IntN(len(all))]
				page, err := bench.reader.Page(b.Context(), store.PageRequest{N: 10, Cursor: cursor, Limit: 20})
				if err != nil || len(page) == 0 && !slices.Equal(cursor, all[len(all)-1]) {
					b.Fatalf("a page after %v: %d solutions, %v", cursor, len(page), err)
				}
			}
			if bench.name == "replica" && r.Replicas()[0].Reads-before < int64(b.N) {
				b.Fatalf("the replica answered %d of %d pages", r.Replicas()[0].Reads-before, b.N)
			}
		})
	}
}
