// Package backoffv5 exercises github.com/cenkalti/backoff/v5.
package backoffv5

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"
)

func get(ctx context.Context, url string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	return http.DefaultClient.Do(req)
}

// Defaults: unbounded tries, 15m elapsed, ctx-aware.
func defaults(ctx context.Context) (*http.Response, error) {
	return backoff.Retry(ctx, func() (*http.Response, error) { return get(ctx, "http://x") }) // want `^backoff\.Retry kind=library attempts=unbounded waits=500ms,750ms,1\.125s,1\.6875s,2\.53125s jitter=yes deadline=yes cancel=yes retryafter=no elapsed=15m .*ctx=true body=true`
}

// Options, Retry-After honoured through backoff.RetryAfter.
func configured(ctx context.Context) (*http.Response, error) {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = time.Second
	b.Multiplier = 2
	b.RandomizationFactor = 0
	return backoff.Retry(ctx, func() (*http.Response, error) { // want `^backoff\.Retry kind=library attempts=4 waits=1s,2s,4s jitter=no deadline=yes cancel=yes retryafter=yes elapsed=60s .*classifier=true`
		resp, err := get(ctx, "http://x")
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			return nil, backoff.RetryAfter(secs)
		}
		if resp.StatusCode == http.StatusBadRequest {
			return nil, backoff.Permanent(err)
		}
		return resp, nil
	}, backoff.WithBackOff(b), backoff.WithMaxTries(4), backoff.WithMaxElapsedTime(time.Minute))
}

// Options handed in from outside: unknown.
func opaque(ctx context.Context, opts []backoff.RetryOption) (*http.Response, error) {
	return backoff.Retry(ctx, func() (*http.Response, error) { return get(ctx, "http://x") }, opts...) // want `^backoff\.Retry kind=library attempts=\? waits=- .*elapsed=\?`
}

// A constant backoff through a local options slice.
func local(ctx context.Context) (*http.Response, error) {
	opts := []backoff.RetryOption{backoff.WithBackOff(backoff.NewConstantBackOff(2 * time.Second))}
	opts = append(opts, backoff.WithMaxTries(3))
	return backoff.Retry(ctx, func() (*http.Response, error) { return get(ctx, "http://x") }, opts...) // want `^backoff\.Retry kind=library attempts=3 waits=2s,2s jitter=no`
}
