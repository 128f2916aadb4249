package postgres

import (
	"context"
	"time"

	"github.com/nqueens/nqueens/store"
)

// SeeWorker records a worker's heartbeat; see store.Writer.
func (s *queries) SeeWorker(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO workers (id) VALUES ($1)
		ON CONFLICT (id) DO UPDATE SET seen_at = now()`, id)
	return err
}

// Workers returns the workers on record; see store.Writer.
func (s *queries) Workers(ctx context.Context) ([]store.Worker, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, started_at, extract(epoch FROM now() - seen_at)::float8
		FROM workers ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Worker
	for rows.Next() {
		var w store.Worker
		var unseen float64
		if err := rows.Scan(&w.ID, &w.StartedAt, &unseen); err != nil {
			return nil, err
		}
		w.Unseen = time.Duration(unseen * float64(time.Second))
		out = append(out, w)
	}
	return out, rows.Err()
}

// ForgetWorker deletes a worker's record; see store.Writer.
func (s *queries) ForgetWorker(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM workers WHERE id = $1`, id)
	return err
}
