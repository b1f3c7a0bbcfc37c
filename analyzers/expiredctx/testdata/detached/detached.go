// Package detached hands a status write a context made by another
// package's helper: what the helper returns decides, not its name.
package detached

import (
	"context"

	"example.com/t/store"
	"example.com/t/xcontext"
)

type Worker struct{ store *store.Store }

func (w *Worker) finish(ctx context.Context, id int64) {
	if ctx.Err() != nil {
		w.store.MarkDone(xcontext.ValueOnly(ctx), id) // quiet: WithoutCancel
		w.store.MarkDone(xcontext.Keep(ctx), id)      // quiet: Done from Background
		cctx, cancel := xcontext.Bounded(ctx)         // quiet: a deadline of its own
		defer cancel()
		w.store.MarkDone(cctx, id)
		w.store.MarkDone(xcontext.DetachTrace(ctx), id)    // want `status write uses xcontext.DetachTrace\(ctx\) after it expired`
		w.store.MarkDone(xcontext.Background(ctx), id)     // want `status write uses xcontext.Background\(ctx\) after it expired`
		w.store.MarkDone(xcontext.FromBackground(ctx), id) // quiet: values copied onto Background
		w.store.MarkDone(xcontext.WithConn(ctx, "c1"), id) // want `status write uses xcontext.WithConn\(ctx, "c1"\) after it expired`
	}
}
