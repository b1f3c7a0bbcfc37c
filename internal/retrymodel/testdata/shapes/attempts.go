package shapes

import (
	"context"
	"errors"
	"time"
)

// A per-attempt context checked before the retry decision: one attempt
// that hits its own timeout ends the whole retry.
func attemptCtxEnds(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,1s jitter=no deadline=yes cancellable=no retryafter=no perattempt=10s attemptctx-ends`
		attemptCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = do(attemptCtx)
		cancel()
		if err == nil {
			return nil
		}
		if attemptCtx.Err() != nil {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// The caller's ctx checked instead: the retry goes on after a slow attempt.
func callerCtxChecked(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,1s jitter=no deadline=yes cancellable=no retryafter=no perattempt=10s$`
		attemptCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err = do(attemptCtx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

type cache struct{ m map[string]string }

// lookup has no error result: a false ok is its failure.
func (c *cache) lookup(ctx context.Context, key string) (string, bool) {
	v, ok := c.m[key]
	return v, ok
}

func okResult(ctx context.Context, c *cache) (string, error) {
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=100ms,100ms`
		if v, ok := c.lookup(ctx, "k"); ok {
			return v, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", errors.New("not found")
}

// A bool iterator with a separate Err: Next false and Err set is the failure.
type rows struct{ err error }

func (r *rows) Next() bool { return false }
func (r *rows) Err() error { return r.err }

func query(ctx context.Context) *rows { return &rows{} }

func iterator(ctx context.Context) (int, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,2s`
		r := query(ctx)
		n := 0
		for r.Next() {
			n++
		}
		if err = r.Err(); err == nil {
			return n, nil
		}
		time.Sleep(time.Second << attempt)
	}
	return 0, err
}
