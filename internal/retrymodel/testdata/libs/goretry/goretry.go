// Package goretry exercises github.com/sethvargo/go-retry.
package goretry

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/sethvargo/go-retry"
)

func call(ctx context.Context) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	return http.DefaultClient.Do(req)
}

// Exponential with retries, cap and jitter; only RetryableError retries.
func configured(ctx context.Context) error {
	b := retry.NewExponential(1 * time.Second)
	b = retry.WithMaxRetries(4, b)
	return retry.Do(ctx, retry.WithJitterPercent(10, retry.WithCappedDuration(5*time.Second, retry.WithMaxRetries(4, retry.NewExponential(time.Second)))), func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=5 waits=1s,2s,4s,5s jitter=yes deadline=yes cancel=yes retryafter=no .*classifier=true .*ctx=true body=true`
		resp, err := call(ctx)
		if err != nil {
			return retry.RetryableError(err)
		}
		if resp.StatusCode >= 500 {
			return retry.RetryableError(err)
		}
		return nil
	})
}

// A backoff variable wrapped in straight-line code: the last assignment counts.
func reassigned(ctx context.Context) error {
	b := retry.NewConstant(time.Second)
	b = retry.WithMaxRetries(2, b)
	return retry.Do(ctx, b, func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=3 waits=1s,1s .*classifier=true`
		_, err := call(ctx)
		return retry.RetryableError(err)
	})
}

// Fibonacci with max duration.
func fib(ctx context.Context) error {
	return retry.Do(ctx, retry.WithMaxDuration(10*time.Second, retry.WithMaxRetries(4, retry.NewFibonacci(time.Second))), func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=5 waits=1s,2s,3s,5s jitter=no .*elapsed=10s`
		_, err := call(ctx)
		return retry.RetryableError(err)
	})
}

// The convenience helpers retry without a bound.
func constant(ctx context.Context) error {
	return retry.Constant(ctx, 2*time.Second, func(ctx context.Context) error { // want `^go-retry Constant kind=library attempts=unbounded waits=2s,2s,2s,2s,2s jitter=no`
		_, err := call(ctx)
		return retry.RetryableError(err)
	})
}

// No error is marked retryable: the operation runs once.
func never(ctx context.Context) error {
	return retry.Do(ctx, retry.WithMaxRetries(3, retry.NewConstant(time.Second)), func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=1 waits=- .*classifier=false`
		_, err := call(ctx)
		return err
	})
}

// A helper of the package marks errors retryable.
func helper(ctx context.Context) error {
	return retry.Do(ctx, retry.WithMaxRetries(2, retry.NewConstant(time.Second)), func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=3 waits=1s,1s .*classifier=true`
		return wrapped(ctx)
	})
}

func wrapped(ctx context.Context) error {
	if _, err := call(ctx); err != nil {
		return retry.RetryableError(err)
	}
	return nil
}

// A closure that reads the backoff before it is wrapped again runs later:
// unknown.
func captured(ctx context.Context) error {
	b := retry.NewConstant(time.Second)
	run := func() error {
		return retry.Do(ctx, b, func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=- waits=-`
			_, err := call(ctx)
			return retry.RetryableError(err)
		})
	}
	b = retry.WithMaxRetries(2, b)
	return run()
}

// The abcxyz/pkg gcpmetadata shape.
func chain(ctx context.Context) error {
	b := retry.NewFibonacci(50 * time.Millisecond)
	b = retry.WithCappedDuration(5*time.Second, b)
	b = retry.WithMaxDuration(30*time.Second, b)
	return retry.Do(ctx, b, func(ctx context.Context) error { // want `^go-retry Do kind=library attempts=unbounded waits=50ms,100ms,150ms,250ms,400ms jitter=no .*elapsed=30s`
		_, err := call(ctx)
		return retry.RetryableError(err)
	})
}

// A poll: only "not ready" is marked retryable.
func poll(ctx context.Context) error {
	return retry.Do(ctx, retry.NewConstant(time.Second), func(ctx context.Context) error {
		resp, err := call(ctx)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusAccepted {
			return retry.RetryableError(errors.New("not ready"))
		}
		return nil
	})
}
