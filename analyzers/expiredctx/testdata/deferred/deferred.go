// Package deferred has deferred cleanups that run after their context
// expired, and the ones that are fine.
package deferred

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v5"

	"example.com/t/store"
)

type Worker struct {
	store *store.Store
}

const jobTimeout = 40 * time.Second

// deadline: the function puts a deadline on ctx; when the deadline ends the
// work, the deferred status write runs on the expired ctx.
func (w *Worker) deadline(ctx context.Context, id int64) (err error) { // want deadline:"status write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	defer func() {
		if err != nil {
			w.store.Fail(ctx, id, err.Error()) // want `deferred status write uses ctx, which has expired when the function returns on its deadline of 40s \(set at deferred/deferred.go:23\): w.store.Fail fails at once \(it writes through s.setState at store/store.go:25\) and the item stays in progress`
		}
	}()
	return store.Pipeline(ctx, id)
}

// direct: a direct defer of a write on the deadline context. No fix: the
// cleanup timeout would start when the defer is registered.
func (w *Worker) direct(ctx context.Context, id string) error { // want direct:"release with ctx param 0"
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	defer w.store.Release(tctx, id) // want `deferred release uses tctx, which has expired when the function returns on its deadline of 30s`
	defer w.store.Release(ctx, id)  // fine: the parent has no deadline set here
	return store.Pipeline(tctx, 1)
}

// cancelOrder: the deferred write is registered before defer cancel(), so
// cancel runs first and the write always fails.
func (w *Worker) cancelOrder(ctx context.Context, id int64) { // want cancelOrder:"status write with ctx param 0"
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		w.store.MarkDone(ctx, id) // want `deferred status write uses ctx after its cancel has run \(defer cancel\(\) at deferred/deferred.go:50 is registered later, so it runs first\)`
	}()
	defer cancel()
	store.Pipeline(ctx, id)
}

// retried: a retry bounded by ctx returns once ctx has expired; the
// deferred release then runs on it.
func (w *Worker) retried(ctx context.Context, id string) { // want retried:"release with ctx param 0"
	defer func() {
		w.store.Release(ctx, id) // want `deferred release uses ctx, which has expired when the backoff.Retry at deferred/deferred.go:60 bounded by it gives up`
	}()
	backoff.Retry(ctx, func() (int, error) {
		return 0, store.Pipeline(ctx, 1)
	})
}

// successOnly: writes guarded by success are fine.
func (w *Worker) successOnly(ctx context.Context, id int64) (err error) { // want successOnly:"status write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	defer func() {
		if err == nil {
			w.store.MarkDone(ctx, id)
		}
	}()
	defer func() {
		if err != nil {
			return
		}
		w.store.MarkDone(ctx, id)
	}()
	return store.Pipeline(ctx, id)
}

// fresh: the deferred cleanup makes its own context: fine.
func (w *Worker) fresh(ctx context.Context, id int64) (err error) {
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		w.store.Fail(cctx, id, "timeout")
	}()
	return store.Pipeline(ctx, id)
}

// parent: the deadline is on a child; the deferred write uses the parent.
func (w *Worker) parent(ctx context.Context, id int64) error { // want parent:"status write with ctx param 0"
	defer w.store.MarkDone(ctx, id)
	tctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	return store.Pipeline(tctx, id)
}

// before: the defer is evaluated before the deadline replaces ctx.
func (w *Worker) before(ctx context.Context, id int64) error { // want before:"status write with ctx param 0"
	defer w.store.MarkDone(ctx, id)
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	return store.Pipeline(ctx, id)
}

// loop: a hand-rolled retry that stops when ctx is done; the deferred
// release then runs on the expired ctx.
func (w *Worker) loop(ctx context.Context, id string) error { // want loop:"release with ctx param 0"
	defer w.store.Release(ctx, id) // want `deferred release uses ctx, which has expired when the retry loop at deferred/deferred.go:115 bounded by it gives up \(5 attempts, waits 1s, 1s, 1s, 1s\)`
	for attempt := 0; attempt < 5; attempt++ {
		if err := store.Pipeline(ctx, 1); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return context.DeadlineExceeded
}
