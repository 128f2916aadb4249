package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/nqueens/nqueens/store"
)

// SeeWorker records a worker's heartbeat; see store.Writer.
func (s *queries) SeeWorker(ctx context.Context, id string) error {
	t := now()
	_, err := s.writer.ExecContext(ctx, `INSERT INTO workers (id, started_at, seen_at) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`, id, t, t)
	return err
}

// Workers returns the workers on record; see store.Writer. The processes
// that share a SQLite file share the machine's clock, which wrote the
// times read here.
func (s *queries) Workers(ctx context.Context) ([]store.Worker, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, started_at, seen_at FROM workers ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Worker
	for rows.Next() {
		var w store.Worker
		var started, seen sql.NullString
		if err := rows.Scan(&w.ID, &started, &seen); err != nil {
			return nil, err
		}
		seenAt, err := parseTime(seen)
		if err == nil {
			w.StartedAt, err = parseTime(started)
		}
		if err != nil {
			return nil, err
		}
		w.Unseen = time.Since(seenAt)
		out = append(out, w)
	}
	return out, rows.Err()
}

// ForgetWorker deletes a worker's record; see store.Writer.
func (s *queries) ForgetWorker(ctx context.Context, id string) error {
	_, err := s.writer.ExecContext(ctx, `DELETE FROM workers WHERE id = ?`, id)
	return err
}
