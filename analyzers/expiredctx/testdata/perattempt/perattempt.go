// Package perattempt: writes on a context the function times out itself.
// The finding stands (the write fails at once), but the suggested fix is
// only offered on the caller's context: detaching a write from a
// per-attempt context the loop cancels on purpose changes what the loop does.
package perattempt

import (
	"context"
	"errors"
	"time"

	"example.com/t/store"
)

type Pool struct {
	store *store.Store
}

// dialRecover makes a fresh per-attempt context on every turn; no fix.
func (p *Pool) dialRecover(ctx context.Context, id int64) error { // want dialRecover:"status write with ctx param 0"
	var err error
	for i := 0; i < 3; i++ {
		actx, cancel := context.WithTimeout(ctx, time.Second)
		err = store.Pipeline(actx, id)
		if errors.Is(err, context.DeadlineExceeded) {
			p.store.MarkDone(actx, id) // want `status write uses actx after it expired`
			cancel()
			continue
		}
		cancel()
		return err
	}
	return err
}

// ownTimeout cancels its own context; no fix.
func (p *Pool) ownTimeout(ctx context.Context, id int64) error { // want ownTimeout:"status write with ctx param 0"
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := store.Pipeline(tctx, id)
	if errors.Is(err, context.DeadlineExceeded) {
		p.store.MarkDone(tctx, id) // want `status write uses tctx after it expired`
	}
	return err
}

// callers is the caller's context, known done inside a loop that returns:
// the fix is offered.
func (p *Pool) callers(ctx context.Context, ids []int64) error { // want callers:"status write with ctx param 0"
	for _, id := range ids {
		if err := store.Pipeline(ctx, id); errors.Is(err, context.DeadlineExceeded) {
			p.store.MarkDone(ctx, id) // want `status write uses ctx after it expired`
			return err
		}
	}
	return nil
}
