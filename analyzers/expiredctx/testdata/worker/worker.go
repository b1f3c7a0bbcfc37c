// Package worker is the incident: the path that wrote its final status on
// the context that had just expired, next to its fixed form.
package worker

import (
	"context"
	"errors"
	"net/http"

	"example.com/t/store"
)

type Item struct{ ID int64 }

type Worker struct {
	store *store.Store
	srv   *http.Server
}

// Handle gives the pipeline 40s. On a timeout it records the failure on the
// same ctx: the write fails at once and the item stays in progress.
func (w *Worker) Handle(ctx context.Context, item Item) error { // want Handle:"status write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, 40e9)
	defer cancel()
	err := store.Pipeline(ctx, item.ID)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			_ = w.store.Fail(ctx, item.ID, "deadline") // want `status write uses ctx after it expired \(checked at worker/worker.go:27\): w.store.Fail fails at once \(it writes through s.setState at store/store.go:25\) and the item stays in progress; run it on context.WithoutCancel\(ctx\) with its own timeout`
		}
		return err
	}
	return w.store.MarkDone(ctx, item.ID) // the success path: fine
}

// HandleFixed is the fix: the failure is recorded on a fresh context with
// its own timeout.
func (w *Worker) HandleFixed(ctx context.Context, item Item) error { // want HandleFixed:"status write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, 40e9)
	defer cancel()
	err := store.Pipeline(ctx, item.ID)
	if errors.Is(err, context.DeadlineExceeded) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5e9)
		defer cancel()
		_ = w.store.Fail(cctx, item.ID, "deadline")
		return err
	}
	return w.store.MarkDone(ctx, item.ID)
}

// Serve shuts the server down on the context that just ended: Shutdown
// returns at once instead of draining requests.
func (w *Worker) Serve(ctx context.Context) error { // want Serve:"shutdown with ctx param 0"
	go func() {
		<-ctx.Done()
		w.srv.Shutdown(ctx) // want `server shutdown uses ctx after it expired \(checked at worker/worker.go:54\): w.srv.Shutdown returns at once without waiting for in-flight requests; run it on context.WithoutCancel\(ctx\) with its own timeout`
	}()
	return w.srv.ListenAndServe()
}

// Shadowed: a variable named time hides the package; no fix is offered.
func (w *Worker) Shadowed(ctx context.Context, time int64) { // want Shadowed:"status write with ctx param 0"
	if ctx.Err() != nil {
		w.store.MarkDone(ctx, time) // want `status write uses ctx after it expired`
	}
}
