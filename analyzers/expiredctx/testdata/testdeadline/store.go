// Package testdeadline: a deferred write on a context with a deadline is
// reported in production code; the same shape in a test, whose deadline
// is the test's own, is quiet.
package testdeadline

import (
	"context"
	"database/sql"
	"time"
)

type Store struct{ db *sql.DB }

func (s *Store) release(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE leases SET holder = NULL WHERE id = $1`, id)
	return err
}

func (s *Store) work(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, `SELECT pg_sleep(1)`)
	return err
}

func (s *Store) Process(parent context.Context, id int64) error {
	ctx, cancel := context.WithTimeout(parent, 30*time.Second)
	defer cancel()
	defer s.release(ctx, id) // want `deferred write uses ctx, which has expired when the function returns on its deadline of 30s`
	return s.work(ctx, id)
}
