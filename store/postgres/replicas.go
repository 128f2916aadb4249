package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/nqueens/nqueens"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/store"
)

// Replicated is the store.Reader of an API process with read replicas
// (streaming replicas of the primary, hot standbys): the reads of a board
// go to one replica chosen by N among those that answer, so that a board's
// row and its pages come from the same one, and only once that replica
// shows the board done. A board it does not show done yet (the replica
// lags behind: replay is in commit order, so its row says how far it is)
// is read from the primary, which answers as it would without replicas:
// never a page missing from a board the primary has finished. A replica
// whose query fails for want of the server is marked down and skipped
// (its reads go to the primary) until a check finds it up again.
//
// Writes, migrations and the job system stay on the primary: Replicated
// only reads. Close closes the replicas, not the primary.
type Replicated struct {
	primary  *Store
	replicas []*replica
	stop     context.CancelFunc
	checks   sync.WaitGroup
}

var _ store.Reader = (*Replicated)(nil)

// replica is one read replica and what is known of it.
type replica struct {
	name string // "replica 1", …: in statuses and metrics, never the URL
	st   *Store
	up   atomic.Bool
	// done holds the boards (N) the replica has shown done: a done board
	// never changes, and replay never goes back.
	done  sync.Map
	reads atomic.Int64 // reads answered from the replica

	mu        sync.Mutex
	checked   bool // a check or a read has said whether it is up
	lastErr   error
	downSince time.Time
}

// ReplicaStatus is what a process knows of one of its read replicas.
type ReplicaStatus struct {
	Name string
	Up   bool
	// DownSince and Err say since when and why a replica is down.
	DownSince time.Time
	Err       error
	// Reads counts the reads the replica answered.
	Reads int64
}

// ReplicasConfig says how to open the read replicas.
type ReplicasConfig struct {
	// Replicas are the replicas' configurations (URL, MaxConns, …); their
	// migrations are never applied (a replica is read-only).
	Replicas []Config
	// Recheck is how often each replica is checked (a ping), so that one
	// marked down comes back once it answers, and one that went away
	// while nothing read from it is seen down.
	Recheck time.Duration
	// OnChange, when not nil, is told when a replica goes down or comes
	// back (its status, for the logs).
	OnChange func(ReplicaStatus)
}

// DefaultRecheck is how often a replica is checked by default.
const DefaultRecheck = 2 * time.Second

// OpenReplicated opens the read replicas of cfg in front of primary. A
// replica that does not answer yet is not an error: it is down until a
// check finds it up (the first check runs at once), and its reads go to
// the primary meanwhile.
func OpenReplicated(ctx context.Context, primary *Store, cfg ReplicasConfig) (*Replicated, error) {
	if cfg.Recheck <= 0 {
		return nil, nqueens.Errorf(nqueens.EINVALID, "read replicas: Recheck must be positive, got %s", cfg.Recheck)
	}
	r := &Replicated{primary: primary}
	for i, rc := range cfg.Replicas {
		rc.SkipMigrations = true
		st, err := open(ctx, rc, false)
		if err != nil {
			r.closeReplicas()
			return nil, fmt.Errorf("read replica %d: %w", i+1, err)
		}
		r.replicas = append(r.replicas, &replica{name: fmt.Sprintf("replica %d", i+1), st: st})
	}
	checkCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r.stop = stop
	for _, rep := range r.replicas {
		r.checks.Go(func() { rep.watch(checkCtx, cfg.Recheck, cfg.OnChange) })
	}
	return r, nil
}

// pingTimeout is the least time a replica's check may take: a replica
// that is slow for a moment on a busy machine is not down (one that is
// down refuses the connection at once).
const pingTimeout = 5 * time.Second

// watch checks the replica every interval until ctx ends, marking it up or
// down as its ping says.
func (rep *replica) watch(ctx context.Context, every time.Duration, onChange func(ReplicaStatus)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, max(every, pingTimeout))
		err := rep.st.Ping(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if changed := rep.mark(err); changed && onChange != nil {
			onChange(rep.status())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// mark records the outcome of a check or a read that failed for want of
// the server: up when err is nil. It reports whether that changed the
// replica's state (the first outcome always does: it was unknown).
func (rep *replica) mark(err error) (changed bool) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	first := !rep.checked
	rep.checked = true
	if err == nil {
		rep.lastErr = nil
		return !rep.up.Swap(true) || first
	}
	rep.lastErr = err
	if rep.up.Swap(false) || first {
		rep.downSince = time.Now()
		// What it showed done it still shows when it comes back, unless
		// it came back as another server (rebuilt from a new base
		// backup): ask again.
		rep.done.Clear()
		return true
	}
	return false
}

func (rep *replica) status() ReplicaStatus {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	s := ReplicaStatus{Name: rep.name, Up: rep.up.Load(), Reads: rep.reads.Load()}
	if !s.Up {
		s.DownSince, s.Err = rep.downSince, rep.lastErr
	}
	return s
}

// Replicas returns the status of each replica, in the order configured.
func (r *Replicated) Replicas() []ReplicaStatus {
	out := make([]ReplicaStatus, len(r.replicas))
	for i, rep := range r.replicas {
		out[i] = rep.status()
	}
	return out
}

// pick is the replica that reads board n: one of those up, by n, so that
// every read of a board goes to the same one while they stay up; nil when
// none is.
func (r *Replicated) pick(n int) *replica {
	up := make([]*replica, 0, len(r.replicas))
	for _, rep := range r.replicas {
		if rep.up.Load() {
			up = append(up, rep)
		}
	}
	if len(up) == 0 {
		return nil
	}
	// A bad N (negative) still picks one: the replica's store refuses it
	// as the primary's would.
	i := n % len(up)
	if i < 0 {
		i += len(up)
	}
	return up[i]
}

// onPrimary reports whether a read that failed on rep with err is for the
// primary to answer: the replica is not reachable (it is marked down), or
// it cancelled the query for a conflict with its replay (SQLSTATE 40001
// on a hot standby), which the primary has not. Any other error is the
// answer (a rank that is not a solution is not one on the primary either).
func (r *Replicated) onPrimary(ctx context.Context, rep *replica, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "40001" {
		return true
	}
	if nqueens.ErrorCode(err) == nqueens.EUNAVAILABLE {
		rep.mark(err)
		return true
	}
	return false
}

// showsDone reports whether rep shows board n done, reading its row once:
// done boards do not change.
func (r *Replicated) showsDone(ctx context.Context, rep *replica, n int) (bool, error) {
	if _, ok := rep.done.Load(n); ok {
		return true, nil
	}
	b, err := rep.st.Board(ctx, n)
	switch {
	case nqueens.ErrorCode(err) == nqueens.ENOTFOUND:
		return false, nil // not replayed yet, or never asked for: the primary says which
	case err != nil:
		return false, err
	case b.State != store.Done:
		return false, nil
	}
	rep.done.Store(n, struct{}{})
	return true, nil
}

// read runs one read of board n on its replica when that shows the board
// done, else (or when the replica fails) on the primary.
func read[T any](ctx context.Context, r *Replicated, n int, f func(*Store) (T, error)) (T, error) {
	if rep := r.pick(n); rep != nil {
		done, err := r.showsDone(ctx, rep, n)
		if err == nil && done {
			v, err := f(rep.st)
			if err == nil || !r.onPrimary(ctx, rep, err) {
				rep.reads.Add(1)
				return v, err
			}
		} else if err != nil && !r.onPrimary(ctx, rep, err) {
			var zero T
			return zero, err
		}
	}
	return f(r.primary)
}

// Board returns the replica's row of N when it shows it done, else the
// primary's.
func (r *Replicated) Board(ctx context.Context, n int) (store.Board, error) {
	if rep := r.pick(n); rep != nil {
		b, err := rep.st.Board(ctx, n)
		switch {
		case err == nil && b.State == store.Done:
			rep.done.Store(n, struct{}{})
			rep.reads.Add(1)
			return b, nil
		case err != nil && nqueens.ErrorCode(err) != nqueens.ENOTFOUND && !r.onPrimary(ctx, rep, err):
			return b, err
		}
	}
	return r.primary.Board(ctx, n)
}

// Boards reads the primary: the list spans boards in every state, each as
// the primary has it now, and it is one small table's scan.
func (r *Replicated) Boards(ctx context.Context, states ...store.BoardState) ([]store.Board, error) {
	return r.primary.Boards(ctx, states...)
}

// Page reads a page of a done board from its replica; see Replicated.
func (r *Replicated) Page(ctx context.Context, req store.PageRequest) ([]store.Solution, error) {
	return read(ctx, r, req.N, func(s *Store) ([]store.Solution, error) { return s.Page(ctx, req) })
}

// Walk streams a done board from its replica; see Replicated. A replica
// lost in the middle of a walk ends it with its error: what was visited
// cannot be taken back to start again on the primary.
func (r *Replicated) Walk(ctx context.Context, req store.WalkRequest, visit func(placement []byte) error) error {
	visited := false
	_, err := read(ctx, r, req.N, func(s *Store) (struct{}, error) {
		if visited {
			return struct{}{}, nqueens.Errorf(nqueens.EUNAVAILABLE, "the read replica was lost in the middle of the walk of N=%d", req.N)
		}
		return struct{}{}, s.Walk(ctx, req, func(p []byte) error {
			visited = true
			return visit(p)
		})
	})
	return err
}

// SolutionAt reads from the board's replica; see Replicated.
func (r *Replicated) SolutionAt(ctx context.Context, n int, rank uint64, unique bool) (store.Solution, error) {
	return read(ctx, r, n, func(s *Store) (store.Solution, error) { return s.SolutionAt(ctx, n, rank, unique) })
}

// Rank reads from the board's replica; see Replicated.
func (r *Replicated) Rank(ctx context.Context, n int, p solver.Placement, unique bool) (uint64, error) {
	return read(ctx, r, n, func(s *Store) (uint64, error) { return s.Rank(ctx, n, p, unique) })
}

// SquareCounts reads from the board's replica; see Replicated.
func (r *Replicated) SquareCounts(ctx context.Context, n int) (solver.SquareCounts, error) {
	return read(ctx, r, n, func(s *Store) (solver.SquareCounts, error) { return s.SquareCounts(ctx, n) })
}

// FilteredCount returns the board's replica's count under f when it shows
// it done, else the primary's: a count has its own state, apart from its
// board's.
func (r *Replicated) FilteredCount(ctx context.Context, n int, f solver.Filter) (store.FilteredCount, error) {
	if rep := r.pick(n); rep != nil {
		fc, err := rep.st.FilteredCount(ctx, n, f)
		switch {
		case err == nil && fc.State == store.Done:
			rep.reads.Add(1)
			return fc, nil
		case err != nil && nqueens.ErrorCode(err) != nqueens.ENOTFOUND && !r.onPrimary(ctx, rep, err):
			return fc, err
		}
	}
	return r.primary.FilteredCount(ctx, n, f)
}

// FilteredCountChunks reads a done count's chunks from the board's replica
// (read in one transaction there, whole once done); a count the replica
// does not show done is read from the primary.
func (r *Replicated) FilteredCountChunks(ctx context.Context, n int, f solver.Filter) ([]solver.Counts, error) {
	if rep := r.pick(n); rep != nil {
		chunks, err := rep.st.FilteredCountChunks(ctx, n, f)
		switch {
		case err == nil:
			rep.reads.Add(1)
			return chunks, nil
		case nqueens.ErrorCode(err) != nqueens.ENOTFOUND && !r.onPrimary(ctx, rep, err):
			return nil, err
		}
	}
	return r.primary.FilteredCountChunks(ctx, n, f)
}

// Ping checks the primary: whatever the replicas do, it answers every read.
func (r *Replicated) Ping(ctx context.Context) error { return r.primary.Ping(ctx) }

// Close stops the checks and closes the replicas; the primary stays open
// (its owner closes it).
func (r *Replicated) Close() error {
	r.stop()
	r.checks.Wait()
	r.closeReplicas()
	return nil
}

func (r *Replicated) closeReplicas() {
	for _, rep := range r.replicas {
		rep.st.Close()
	}
}
