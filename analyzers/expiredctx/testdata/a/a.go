// Package a learns in every way that a context is done, then writes on it.
package a

import (
	"context"
	"database/sql"
	"errors"

	"github.com/redis/go-redis/v9"

	"example.com/t/store"
)

type Worker struct {
	db    *sql.DB
	rdb   *redis.Client
	store *store.Store
	queue store.Queue
	log   store.Logger
}

// errorsIs: the pipeline's error is a deadline, so ctx has expired.
func (w *Worker) errorsIs(ctx context.Context, id int64) error { // want errorsIs:"status write with ctx param 0"
	err := store.Pipeline(ctx, id)
	if errors.Is(err, context.DeadlineExceeded) {
		w.store.MarkDone(ctx, id) // want `status write uses ctx after it expired \(checked at a/a.go:25\): w.store.MarkDone fails at once \(it writes through s.db.ExecContext at store/store.go:19\) and the item stays in progress; run it on context.WithoutCancel\(ctx\) with its own timeout`
		return err
	}
	return err
}

// ctxErr: ctx.Err() != nil.
func (w *Worker) ctxErr(ctx context.Context, id int64) { // want ctxErr:"write with ctx param 0"
	if ctx.Err() != nil {
		w.db.ExecContext(ctx, `UPDATE jobs SET state = 'timeout' WHERE id = $1`, id) // want `write uses ctx after it expired \(checked at a/a.go:34\): w.db.ExecContext fails at once and the write is lost`
	}
}

// errEqual: err == ctx.Err().
func (w *Worker) errEqual(ctx context.Context, id string) error { // want errEqual:"release with ctx param 0"
	err := w.rdb.Get(ctx, "job:"+id).Err()
	if err != nil && err == ctx.Err() {
		return w.store.Release(ctx, id) // want `release uses ctx after it expired \(checked at a/a.go:42\): w.store.Release fails at once \(it writes through s.rdb.Del at store/store.go:34\) and the lock or lease stays held until it times out`
	}
	return nil
}

// selectDone: case <-ctx.Done():
func (w *Worker) selectDone(ctx context.Context, id string, results <-chan error) error { // want selectDone:"nack with ctx param 0"
	select {
	case err := <-results:
		return err
	case <-ctx.Done():
		w.queue.Nack(ctx, id) // want `nack uses ctx after it expired \(checked at a/a.go:53\): w.queue.Nack fails at once and the message is not handed back`
		return ctx.Err()
	}
}

// canceled: errors.Is(err, context.Canceled) on the error of a call given
// jobCtx: jobCtx is the one that is done.
func (w *Worker) canceled(ctx context.Context, id int64) error { // want canceled:"status write with ctx param 0"
	jobCtx := context.WithValue(ctx, "job", id)
	if err := store.Pipeline(jobCtx, id); errors.Is(err, context.Canceled) {
		_ = w.store.Fail(jobCtx, id, "canceled") // want `status write uses jobCtx after it expired \(checked at a/a.go:63\)`
		return err
	}
	return nil
}

// derived: a context derived from the expired one without WithoutCancel
// is expired too.
func (w *Worker) derived(ctx context.Context, id int64) { // want derived:"status write with ctx param 0"
	if ctx.Err() != nil {
		tctx, cancel := context.WithTimeout(ctx, 5e9)
		defer cancel()
		w.store.MarkDone(tctx, id) // want `status write uses tctx after it expired`
	}
}

// switchCase: a tagless switch and a switch on the error.
func (w *Worker) switchCase(ctx context.Context, id string) error { // want switchCase:"ack with ctx param 0"
	err := store.Pipeline(ctx, 1)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		w.rdb.XAck(ctx, "jobs", "workers", id) // want `ack uses ctx after it expired \(checked at a/a.go:84\): w.rdb.XAck fails at once and the message is delivered again`
	case err != nil:
		return err
	}
	switch ctx.Err() {
	case context.Canceled, context.DeadlineExceeded:
		w.queue.Ack(ctx, id) // want `ack uses ctx after it expired \(checked at a/a.go:90\)`
	}
	return nil
}

// elseBranch: ctx.Err() == nil is false in the else branch, and after an
// early return.
func (w *Worker) elseBranch(ctx context.Context, id string) { // want elseBranch:"write with ctx param 0"
	if ctx.Err() == nil {
		w.rdb.Set(ctx, "job:"+id, "running", 0) // fine: ctx is alive here
	} else {
		w.rdb.HSet(ctx, "job:"+id, "state", "timeout") // want `write uses ctx after it expired \(checked at a/a.go:99\)`
	}
	if err := ctx.Err(); err == nil {
		return
	}
	_ = store.Requeue("jobs", ctx, w.rdb, id) // want `publish uses ctx after it expired \(checked at a/a.go:104\): store.Requeue fails at once \(it writes through rdb.LPush at store/store.go:39\) and the message is never sent`
}

// bareDone: after <-ctx.Done() the rest of the block runs on a done ctx.
func (w *Worker) bareDone(ctx context.Context, id string) { // want bareDone:"publish with ctx param 0"
	go func() {
		<-ctx.Done()
		w.rdb.Publish(ctx, "events", "stopped:"+id) // want `publish uses ctx after it expired \(checked at a/a.go:113\)`
	}()
}

// field: the context is a field of the worker.
type runner struct {
	ctx context.Context
	w   *Worker
}

func (r *runner) field(id int64) {
	if r.ctx.Err() != nil {
		r.w.store.MarkDone(r.ctx, id) // want `status write uses r.ctx after it expired`
	}
}

// sqlTx: BeginTx on an expired context fails; so does a write query.
func (w *Worker) sqlTx(ctx context.Context, id int64) error { // want sqlTx:"write with ctx param 0"
	if err := store.Pipeline(ctx, id); errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		tx, err := w.db.BeginTx(ctx, nil) // want `write uses ctx after it expired`
		if err != nil {
			return err
		}
		defer tx.Rollback() // Rollback takes no context: not reported
		return tx.Commit()
	}
	return nil
}
