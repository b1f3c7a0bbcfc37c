// Package failsafe holds failsafe-go retry policies whose time behaviour
// is wrong, beside ones that are right.
package failsafe

import (
	"context"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

func send(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

func retryable(resp *http.Response, err error) bool {
	return err != nil || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

// Fetch retries 429 on its own backoff, with no random part.
func Fetch(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	rp := retrypolicy.NewBuilder[*http.Response]().
		WithMaxRetries(3).
		WithBackoff(time.Second, 8*time.Second). // want `no jitter: failsafe Get waits 1s, 2s, 4s \(exponential 1s\*2\^i, cap 8s\) with no random part`
		HandleIf(func(resp *http.Response, err error) bool {
			return err != nil || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 // want `retry-after ignored: failsafe Get retries 429 but waits 1s, 2s, 4s without reading the Retry-After header`
		}).
		Build()
	return failsafe.With(rp).WithContext(ctx).Get(func() (*http.Response, error) { return send(ctx, c, url) })
}

// Poll runs on the executor's context.Background(): its waits outlast ctx.
func Poll(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	rp := retrypolicy.NewBuilder[*http.Response]().
		WithMaxRetries(3).
		WithBackoff(time.Second, 8*time.Second).
		WithJitterFactor(0.5).
		Build()
	return failsafe.With(rp).Get(func() (*http.Response, error) { return send(ctx, c, url) }) // want `wait ignores cancellation: failsafe Get waits between attempts on a timer of its own \(the executor runs on context.Background\(\)\), so after ctx is done it waits on and then runs the operation again.*run it with .WithContext\(ctx\)`
}

// Quiet: jittered, bound to ctx, and the wait is failsafehttp's, which
// reads Retry-After.
func Careful(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	rp := retrypolicy.NewBuilder[*http.Response]().
		WithMaxRetries(3).
		WithBackoff(time.Second, 8*time.Second).
		WithJitterFactor(0.5).
		WithDelayFunc(failsafehttp.DelayFunc).
		HandleIf(retryable).
		Build()
	return failsafe.With(rp).WithContext(ctx).Get(func() (*http.Response, error) { return send(ctx, c, url) })
}

// Quiet: failsafehttp's builder waits Retry-After; jittered, bound to ctx.
func Standard(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	rp := failsafehttp.NewRetryPolicyBuilder().
		WithMaxRetries(3).
		WithBackoff(time.Second, 8*time.Second).
		WithJitterFactor(0.5).
		Build()
	return failsafe.With(rp).WithContext(ctx).Get(func() (*http.Response, error) { return send(ctx, c, url) })
}
