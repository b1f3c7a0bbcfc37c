// Package hand holds functions that hand the operation they are given on
// to a retry instead of calling it in a loop of their own, and lookalikes
// that hand it elsewhere.
package hand

import (
	"context"
	"time"

	"github.com/avast/retry-go/v4"
)

// Do hands fn to retry-go: a retry helper.
func Do(ctx context.Context, fn func() error) error { // want Do:`^reaches retry.Do\(3\); retries param 1$`
	return retry.Do(fn, retry.Context(ctx), retry.Attempts(3), retry.Delay(time.Second))
}

// DoN hands fn on with the count its caller gives.
func DoN(ctx context.Context, n uint, fn func() error) error { // want DoN:`^reaches retry.Do; retries param 2$`
	return retry.Do(fn, retry.Context(ctx), retry.Attempts(n))
}

// Wrap hands fn to Do inside a closure that calls it: a helper too.
func Wrap[T any](ctx context.Context, fn func() (T, error)) (T, error) { // want Wrap:`^reaches retry helper hand.Do\(3\); retries param 1$`
	var out T
	err := Do(ctx, func() error {
		var err error
		out, err = fn()
		return err
	})
	return out, err
}

// Pass hands fn straight to Do.
func Pass(ctx context.Context, fn func() error) error { return Do(ctx, fn) } // want Pass:`^reaches retry helper hand.Do\(3\); retries param 1$`

func work() error { return nil }

// Hook hands fn to retry-go as its OnRetry hook, not as the operation:
// not a helper.
func Hook(ctx context.Context, fn func(n uint, err error)) error { // want Hook:`^reaches retry.Do\(10\)$`
	return retry.Do(work, retry.Context(ctx), retry.OnRetry(fn))
}

// Later retries a closure that only starts fn in a goroutine: not a helper.
func Later(ctx context.Context, fn func() error) error { // want Later:`^reaches retry helper hand.Do\(3\)$`
	return Do(ctx, func() error {
		go fn()
		return nil
	})
}

// Background starts fn in a goroutine: not a helper.
func Background(fn func() error) { go fn() }

// Runner stores fn for later: not a helper.
type Runner struct{ op func() error }

// Set stores fn.
func (r *Runner) Set(fn func() error) { r.op = fn }

// Once calls fn once: not a helper.
func Once(fn func() error) error { return fn() }
