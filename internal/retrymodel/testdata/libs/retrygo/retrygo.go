// Package retrygo exercises github.com/avast/retry-go/v4.
package retrygo

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
)

func call(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	_, err := http.DefaultClient.Do(req)
	return err
}

// Defaults: 10 attempts, 100ms<<i plus up to 100ms at random, no context.
func defaults(ctx context.Context) error {
	return retry.Do(func() error { return call(ctx) }) // want `^retry\.Do kind=library attempts=10 waits=100ms,200ms,400ms,800ms,1\.6s,3\.2s,6\.4s,12\.8s jitter=yes deadline=no cancel=no retryafter=no elapsed=- .*classifier=false .*ctx=false body=true ops=1`
}

var errFatal = errors.New("fatal")

// Options: attempts, fixed delay, context, RetryIf.
func configured(ctx context.Context) error {
	return retry.Do( // want `^retry\.Do kind=library attempts=3 waits=2s,2s jitter=no deadline=yes cancel=yes retryafter=no .*classifier=true .*ctx=true body=true`
		func() error { return call(ctx) },
		retry.Attempts(3),
		retry.Delay(2*time.Second),
		retry.DelayType(retry.FixedDelay),
		retry.Context(ctx),
		retry.RetryIf(func(err error) bool { return !errors.Is(err, errFatal) }),
	)
}

// Exponential with a cap, no random part; DoWithData.
func capped(ctx context.Context) (int, error) {
	return retry.DoWithData(func() (int, error) { return 1, call(ctx) }, retry.Attempts(5), retry.Delay(time.Second), retry.MaxDelay(3*time.Second), retry.DelayType(retry.BackOffDelay)) // want `^retry\.DoWithData kind=library attempts=5 waits=1s,2s,3s,3s jitter=no`
}

// UntilSucceeded: unbounded; full jitter: waits not listed.
func forever(ctx context.Context) error {
	return retry.Do(func() error { return call(ctx) }, retry.UntilSucceeded(), retry.DelayType(retry.FullJitterBackoffDelay), retry.Context(ctx)) // want `^retry\.Do kind=library attempts=unbounded waits=- jitter=yes deadline=yes`
}

// Combined delays; Unrecoverable marks the classifier.
func combined(ctx context.Context) error {
	return retry.Do(func() error { // want `^retry\.Do kind=library attempts=4 waits=500ms,1s,2s jitter=yes .*classifier=true`
		if err := call(ctx); err != nil {
			if errors.Is(err, errFatal) {
				return retry.Unrecoverable(err)
			}
			return err
		}
		return nil
	}, retry.Attempts(4), retry.Delay(500*time.Millisecond), retry.DelayType(retry.CombineDelay(retry.BackOffDelay, retry.RandomDelay)))
}

// Options from elsewhere: unknown.
func opaque(ctx context.Context, opts []retry.Option) error {
	return retry.Do(func() error { return call(ctx) }, opts...) // want `^retry\.Do kind=library attempts=\? waits=- jitter=unknown deadline=unknown`
}

// Attempts(1): a single attempt is still the library call, with 1 attempt.
func once(ctx context.Context) error {
	return retry.Do(func() error { return call(ctx) }, retry.Attempts(1)) // want `^retry\.Do kind=library attempts=1 waits=-`
}

// Not layers: options alone.
func notLayers() []retry.Option {
	return []retry.Option{retry.Attempts(3), retry.Delay(time.Second)}
}

// A context that is never cancelled does not make the library deadline-aware.
func background() error {
	ctx := context.Background()
	return retry.Do(func() error { return call(ctx) }, retry.Attempts(2), retry.Context(ctx)) // want `^retry\.Do kind=library attempts=2 waits=100ms jitter=yes deadline=no cancel=no .*notes=bound to context\.Background\(\), which is never cancelled`
}
