// Package quiet holds the lookalikes that must not be reported.
package quiet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/t/store"
)

type Span interface {
	End()
	RecordError(err error)
}

type Metrics interface {
	Add(ctx context.Context, name string, n int64)
	Inc(ctx context.Context, name string)
	Observe(ctx context.Context, name string, v float64)
}

type Worker struct {
	db      *sql.DB
	rdb     *redis.Client
	store   *store.Store
	queue   store.Queue
	log     store.Logger
	metrics Metrics
	memo    *memo
}

// memo has a Set method but writes nothing that must happen: no fact, and
// a name alone on a concrete type decides nothing.
type memo struct{ m map[string]string }

func (m *memo) Set(ctx context.Context, k, v string) { m.m[k] = v }

// observe: logging, tracing and metrics after expiry are fine.
func (w *Worker) observe(ctx context.Context, span Span, id int64) error {
	err := store.Pipeline(ctx, id)
	if errors.Is(err, context.DeadlineExceeded) {
		slog.ErrorContext(ctx, "pipeline timed out", "id", id)
		w.log.Error(ctx, "pipeline timed out")
		span.RecordError(err)
		span.End()
		w.metrics.Inc(ctx, "timeouts")
		w.metrics.Add(ctx, "timeouts", 1)
		w.memo.Set(ctx, "last", "timeout")
		return fmt.Errorf("job %d: %w", id, err) // returning the error up
	}
	return err
}

// reads: failed reads lose nothing.
func (w *Worker) reads(ctx context.Context, id int64) {
	if ctx.Err() != nil {
		w.store.Get(ctx, id)
		w.store.Peek(ctx, "x")
		w.rdb.Get(ctx, "x")
		w.queue.Len(ctx)
		w.db.QueryRowContext(ctx, `SELECT state FROM jobs WHERE id = $1`, id)
	}
}

// fresh: the write runs on a context that is not the expired one.
func (w *Worker) fresh(ctx context.Context, id int64) {
	if ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		w.store.MarkDone(cctx, id)
		w.store.MarkDone(context.Background(), id)
		w.store.Safe(ctx, id)       // makes its own context inside
		w.store.Background(ctx, id) // ignores its parameter
		ctx = context.WithoutCancel(ctx)
		w.store.MarkDone(ctx, id) // ctx was replaced above
	}
}

// child: the child context expired; the write uses the parent, which is
// alive. This is the right way to write a worker.
func (w *Worker) child(ctx context.Context, id int64) error { // want child:"status write with ctx param 0"
	jobCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := store.Pipeline(jobCtx, id)
	if errors.Is(err, context.DeadlineExceeded) {
		return w.store.Fail(ctx, id, "timeout")
	}
	if jobCtx.Err() != nil {
		return w.store.Fail(ctx, id, "timeout")
	}
	return err
}

// successPath: the write runs only when the work succeeded.
func (w *Worker) successPath(ctx context.Context, id int64) error { // want successPath:"status write with ctx param 0"
	if err := store.Pipeline(ctx, id); err != nil {
		return err
	}
	return w.store.MarkDone(ctx, id)
}

// notProven: the condition holds for errors that do not mean expiry.
func (w *Worker) notProven(ctx context.Context, id int64, errc <-chan error) { // want notProven:"status write with ctx param 0"
	err := store.Pipeline(ctx, id)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) {
		w.store.MarkDone(ctx, id)
	}
	err = <-errc
	if errors.Is(err, context.Canceled) { // an error from a channel: whose context?
		w.store.MarkDone(ctx, id)
	}
}

// noContext: calls that take no context cannot fail for it.
func (w *Worker) noContext(ctx context.Context, tx *sql.Tx, id int64) {
	if ctx.Err() != nil {
		tx.Rollback()
		w.db.Exec(`UPDATE jobs SET state = 'timeout' WHERE id = $1`, id)
	}
}

// polling: writes in the other cases of a select are fine.
func (w *Worker) polling(ctx context.Context, id int64) error { // want polling:"status write with ctx param 0"
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			w.store.MarkDone(ctx, id)
		}
	}
}

// noDeadline: a deferred write in a function that sets no deadline and
// runs no retry on its context.
func (w *Worker) noDeadline(ctx context.Context, id int64) { // want noDeadline:"status write with ctx param 0"
	defer w.store.MarkDone(ctx, id)
	store.Pipeline(ctx, id)
}

// ignored: a finding silenced with a reason.
func (w *Worker) ignored(ctx context.Context, id int64) { // want ignored:"status write with ctx param 0"
	if ctx.Err() != nil {
		//retryvet:ignore expiredctx the store retries on its own context
		w.store.MarkDone(ctx, id)
	}
}

// detach keeps the values of ctx but not its cancellation.
func detach(ctx context.Context) context.Context {
	cctx, _ := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second) //nolint:govet
	return cctx
}

// NewBackgroundContext is a pre-1.21 WithoutCancel, named for what it does.
func NewBackgroundContext(ctx context.Context) context.Context { return context.Background() }

// helpers: the context handed to the write is made fresh by a helper.
func (w *Worker) helpers(ctx context.Context, id int64) {
	if ctx.Err() != nil {
		w.store.MarkDone(detach(ctx), id)
		w.store.MarkDone(NewBackgroundContext(ctx), id)
	}
}

// Cache is a cache: its writes lose nothing when they fail.
type Cache interface {
	Set(ctx context.Context, k, v string) error
	Delete(ctx context.Context, k string) error
}

// cached: cache writes after expiry are fine.
func cached(ctx context.Context, c Cache) {
	if ctx.Err() != nil {
		c.Set(ctx, "k", "v")
		c.Delete(ctx, "k")
	}
}

// panicked: a deferred write on the panic path only is not on the path
// where the deadline ended the work.
func (w *Worker) panicked(ctx context.Context, id int64) { // want panicked:"status write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			w.store.Fail(ctx, id, "panic")
			panic(r)
		}
	}()
	store.Pipeline(ctx, id)
}

// either: one of two contexts is done, but which one is not known.
func (w *Worker) either(ctx, other context.Context, id int64) { // want either:"status write with ctx param 0"
	if ctx.Err() != nil || other.Err() != nil {
		w.store.MarkDone(ctx, id)
	}
}

// fetch puts its own deadline on the call: its DeadlineExceeded does not
// mean ctx expired.
func fetch(ctx context.Context, id int64) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return store.Pipeline(ctx, id)
}

// ownTimeouts: the error is a timeout of the callee's own, or of a request
// that carries ctx inside it.
func (w *Worker) ownTimeouts(ctx context.Context, id int64, do func(context.Context) error) { // want ownTimeouts:"status write with ctx param 0"
	if err := fetch(ctx, id); errors.Is(err, context.DeadlineExceeded) {
		w.store.Fail(ctx, id, "fetch timed out")
	}
	if err := do(context.WithoutCancel(ctx)); errors.Is(err, context.DeadlineExceeded) {
		w.store.Fail(ctx, id, "timed out")
	}
}
