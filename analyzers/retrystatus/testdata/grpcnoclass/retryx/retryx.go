// Package retryx is a project's own retry helper: Retry runs op until it
// succeeds or isRetriable says no; a nil isRetriable retries every error.
package retryx

import (
	"context"
	"time"
)

func Retry(ctx context.Context, op func(ctx context.Context) error, attempts int, isRetriable func(error) bool) error {
	if isRetriable == nil {
		isRetriable = func(error) bool { return true }
	}
	var err error
	for i := 0; i < attempts; i++ {
		if err = op(ctx); err == nil {
			return nil
		}
		if !isRetriable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * 200 * time.Millisecond):
		}
	}
	return err
}

// A Policy says how long to wait before the next attempt, or that the
// retry is over (a non-nil error).
type Policy interface {
	Next(attempt int) (time.Duration, error)
}

// RetryPolicy runs op until it succeeds, isRetriable says no, or pol stops.
func RetryPolicy(ctx context.Context, op func(ctx context.Context) error, pol Policy, isRetriable func(error) bool) error {
	for attempt := 0; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if isRetriable != nil && !isRetriable(err) {
			return err
		}
		wait, stop := pol.Next(attempt)
		if stop != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}
