// Package store holds helpers that write with their context parameter:
// callers in other packages see them through the WritesFact.
package store

import (
	"context"
	"database/sql"

	"github.com/redis/go-redis/v9"
)

type Store struct {
	db  *sql.DB
	rdb *redis.Client
}

// MarkDone writes the final status with ctx.
func (s *Store) MarkDone(ctx context.Context, id int64) error { // want MarkDone:"status write with ctx param 0 via s.db.ExecContext at store/store.go:19"
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET state = 'done' WHERE id = $1`, id)
	return err
}

// Fail writes through another helper of this package.
func (s *Store) Fail(ctx context.Context, id int64, reason string) error { // want Fail:"status write with ctx param 0 via s.setState at store/store.go:25"
	return s.setState(ctx, id, "failed:"+reason)
}

func (s *Store) setState(ctx context.Context, id int64, state string) error { // want setState:"status write with ctx param 0 via s.db.QueryRowContext at store/store.go:29"
	return s.db.QueryRowContext(ctx, `UPDATE jobs SET state = $2 WHERE id = $1 RETURNING id`, id, state).Err()
}

// Release drops the job's lease in redis.
func (s *Store) Release(ctx context.Context, id string) error { // want Release:"release with ctx param 0 via s.rdb.Del at store/store.go:34"
	return s.rdb.Del(ctx, "lease:"+id).Err()
}

// Requeue is a helper whose context is the second parameter.
func Requeue(name string, ctx context.Context, rdb *redis.Client, id string) error { // want Requeue:"publish with ctx param 1 via rdb.LPush at store/store.go:39"
	return rdb.LPush(ctx, name, id).Err()
}

// Get reads: its failure loses nothing, so it has no fact.
func (s *Store) Get(ctx context.Context, id int64) (string, error) {
	var state string
	err := s.db.QueryRowContext(ctx, `SELECT state FROM jobs WHERE id = $1`, id).Scan(&state)
	return state, err
}

// Touch refreshes a cache entry: a read through redis.
func (s *Store) Peek(ctx context.Context, id string) (string, error) {
	return s.rdb.Get(ctx, "lease:"+id).Result()
}

// Safe writes on a context of its own: it is safe to call on an expired one.
func (s *Store) Safe(ctx context.Context, id int64) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5e9)
	defer cancel()
	_, err := s.db.ExecContext(cctx, `UPDATE jobs SET state = 'done' WHERE id = $1`, id)
	return err
}

// Background writes on a fresh context; it ignores its parameter.
func (s *Store) Background(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(context.Background(), `DELETE FROM jobs WHERE id = $1`, id)
	return err
}

// Queue is the project's queue interface: its implementation is not seen,
// its method names decide.
type Queue interface {
	Ack(ctx context.Context, id string) error
	Nack(ctx context.Context, id string) error
	Len(ctx context.Context) (int, error)
}

// Logger logs with a context: not a write that must happen.
type Logger interface {
	Info(ctx context.Context, msg string, args ...any)
	Error(ctx context.Context, msg string, args ...any)
}

// Pipeline is the work that times out.
func Pipeline(ctx context.Context, id int64) error {
	<-ctx.Done()
	return ctx.Err()
}
