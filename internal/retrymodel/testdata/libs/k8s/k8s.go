// Package k8s exercises k8s.io/client-go/util/retry and
// k8s.io/apimachinery/pkg/util/wait.
package k8s

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

func update(ctx context.Context) error { return errors.New("conflict") }

func conflict(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return update(ctx) }) // want `^retry\.RetryOnConflict kind=library attempts=5 waits=10ms,10ms,10ms,10ms jitter=yes deadline=no cancel=no retryafter=no .*body=true`
}

func onError(ctx context.Context) error {
	return retry.OnError(retry.DefaultBackoff, func(err error) bool { return true }, func() error { return update(ctx) }) // want `^retry\.OnError kind=library attempts=4 waits=10ms,50ms,250ms jitter=yes .*classifier=true`
}

func custom(ctx context.Context) error {
	b := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 6, Cap: 5 * time.Second}
	return retry.OnError(b, isTransient, func() error { return update(ctx) }) // want `^retry\.OnError kind=library attempts=3 waits=1s,2s jitter=no .*classifier=true`
}

func isTransient(err error) bool { return true }

func modified(ctx context.Context) error {
	b := retry.DefaultBackoff
	b.Steps = 2
	return wait.ExponentialBackoff(b, func() (bool, error) { return update(ctx) == nil, nil }) // want `^wait\.ExponentialBackoff kind=library attempts=2 waits=10ms jitter=yes deadline=no cancel=no`
}

func withCtx(ctx context.Context) error {
	return wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: 100 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 3}, func(ctx context.Context) (bool, error) { // want `^wait\.ExponentialBackoffWithContext kind=library attempts=3 waits=100ms,150ms jitter=yes deadline=yes cancel=yes .*ctx=true`
		return update(ctx) == nil, nil
	})
}

// Not layers: pollers.
func poll(ctx context.Context) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) { return true, nil })
}

// waitReady polls with a backoff: an error ends the wait at once, and
// (false, nil) means "not ready yet". A poll, not a retry: no layer.
func waitReady(ctx context.Context) error {
	return wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: time.Second, Factor: 2, Steps: 8}, func(ctx context.Context) (bool, error) {
		ready, err := status(ctx)
		if err != nil {
			return true, err
		}
		return ready, nil
	})
}

func status(ctx context.Context) (bool, error) { return false, nil }

// swallow retries failures: (false, nil) under the error test.
func swallow(ctx context.Context) error {
	return wait.ExponentialBackoff(wait.Backoff{Duration: time.Second, Factor: 2, Steps: 3}, func() (bool, error) { // want `^wait\.ExponentialBackoff kind=library attempts=3`
		if err := update(ctx); err != nil {
			return false, nil
		}
		return true, nil
	})
}
