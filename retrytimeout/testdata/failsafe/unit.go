package failsafe

import (
	"context"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

// Connect means a backoff from 2 seconds, and gives 2: 2 nanoseconds.
func Connect(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	rp := retrypolicy.NewBuilder[*http.Response]().
		WithMaxRetries(2).
		WithBackoff(2, 2*time.Second). // want `wait of 2ns: Builder.WithBackoff takes a time.Duration and is given 2, an untyped constant, which is 2 nanoseconds: the retry does not wait at all between attempts`
		WithJitter(25). // want `jitter of 25ns: Builder.WithJitter takes a time.Duration and is given 25, an untyped constant, which is 25 nanoseconds: the waits get no random spread`
		Build()
	return failsafe.With(rp).WithContext(ctx).Get(func() (*http.Response, error) { return send(ctx, c, url) })
}

const pause = 500 * time.Millisecond

// Quiet: durations with their unit, and an explicit 0.
func Reconnect(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	rp := retrypolicy.NewBuilder[*http.Response]().
		WithMaxRetries(2).
		WithBackoff(pause, 2*time.Second).
		WithJitter(0).
		WithJitterFactor(0.25).
		Build()
	return failsafe.With(rp).WithContext(ctx).Get(func() (*http.Response, error) { return send(ctx, c, url) })
}
