// Package libcancel holds retry libraries whose waits are timers of their
// own: bound to the caller's context (quiet) or not (a cancel is seen only
// when a wait ends, and the operation runs again).
package libcancel

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"k8s.io/apimachinery/pkg/util/wait"
)

func get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Backoff: the default exponential backoff, not bound to ctx.
func Backoff(ctx context.Context, c *http.Client, url string) error {
	return backoff.Retry(func() error { // want `wait ignores cancellation: backoff.Retry waits between attempts on a timer of its own \(its backoff is not bound to a context\), so after ctx is done it waits on and then runs the operation again \(waits 500ms, 750ms, 1.13s, ...\), for as long as its elapsed limit of 15m if the operation's error is retried; bind the backoff to ctx: backoff.WithContext\(b, ctx\)`
		return get(ctx, c, url)
	}, backoff.NewExponentialBackOff())
}

// BackoffBound: the same bound with WithContext. Quiet.
func BackoffBound(ctx context.Context, c *http.Client, url string) error {
	return backoff.Retry(func() error {
		return get(ctx, c, url)
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// RetryGo: retry-go's default ten attempts without retry.Context.
func RetryGo(ctx context.Context, c *http.Client, url string) error {
	return retry.Do(func() error { // want `wait ignores cancellation: retry.Do waits between attempts on a timer of its own \(no retry.Context option\), so after ctx is done it waits on and then runs the operation again .*; pass retry.Context\(ctx\)`
		return get(ctx, c, url)
	}, retry.Attempts(5), retry.Delay(time.Second))
}

// RetryGoBound passes retry.Context. Quiet.
func RetryGoBound(ctx context.Context, c *http.Client, url string) error {
	return retry.Do(func() error {
		return get(ctx, c, url)
	}, retry.Attempts(5), retry.Delay(time.Second), retry.Context(ctx))
}

// Wait: apimachinery's ExponentialBackoff sleeps with time.Sleep.
func Wait(ctx context.Context, c *http.Client, url string) error {
	b := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: 5}
	return wait.ExponentialBackoff(b, func() (bool, error) { // want `wait ignores cancellation: wait.ExponentialBackoff waits between attempts on a timer of its own \(it sleeps with time.Sleep\).*; use wait.ExponentialBackoffWithContext\(ctx, ...\)`
		if err := get(ctx, c, url); err != nil {
			return false, nil
		}
		return true, nil
	})
}

// WaitBound is the context form. Quiet.
func WaitBound(ctx context.Context, c *http.Client, url string) error {
	b := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: 5}
	return wait.ExponentialBackoffWithContext(ctx, b, func(ctx context.Context) (bool, error) {
		if err := get(ctx, c, url); err != nil {
			return false, nil
		}
		return true, nil
	})
}

// NoCaller runs with no context in scope: nothing a caller cancels.
// Quiet.
func NoCaller(c *http.Client, url string) error {
	return backoff.Retry(func() error {
		return get(context.Background(), c, url)
	}, backoff.NewExponentialBackOff())
}

// Detached binds nothing, but its only context is Background: no caller
// cancels it, so no caller's deadline is overrun, and its attempt count is
// the bound it can have. Quiet.
func Detached(c *http.Client, url string) error {
	ctx := context.Background()
	return retry.Do(func() error {
		return get(ctx, c, url)
	}, retry.Attempts(5), retry.Delay(time.Second))
}

// Brief waits 10ms, 20ms, 40ms: under a second in all, a cancel is seen
// at once. Quiet.
func Brief(ctx context.Context, c *http.Client, url string) error {
	return retry.Do(func() error {
		return get(ctx, c, url)
	}, retry.Attempts(4), retry.Delay(10*time.Millisecond), retry.DelayType(retry.BackOffDelay))
}

// Abort rolls back after the caller cancelled: the retry runs only once
// ctx is done, so binding its waits to ctx would end the rollback at
// once. The rollback's context is expiredctx's question. Quiet here.
func Abort(ctx context.Context, c *http.Client, url string) error {
	err := get(ctx, c, url)
	if err != nil && ctx.Err() != nil {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return backoff.Retry(func() error {
			return get(ctx, c, url+"/rollback")
		}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 10))
	}
	return err
}

// AbortLoop is the same with a hand-rolled loop. Quiet.
func AbortLoop(ctx context.Context, c *http.Client, url string) error {
	if ctx.Err() == nil {
		return nil
	} else {
		var err error
		for i := 0; i < 5; i++ {
			if err = get(ctx, c, url+"/rollback"); err == nil {
				return nil
			}
			time.Sleep(time.Duration(rand.Int64N(int64(2 * time.Second))))
		}
		return err
	}
}

// AbortEq compares the context's error with its sentinel: the same. Quiet.
func AbortEq(ctx context.Context, c *http.Client, url string) error {
	if err := get(ctx, c, url); err == nil || ctx.Err() != context.DeadlineExceeded {
		return err
	}
	if ctx.Err() == context.DeadlineExceeded {
		return backoff.Retry(func() error {
			return get(ctx, c, url+"/rollback")
		}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 10))
	}
	return nil
}
