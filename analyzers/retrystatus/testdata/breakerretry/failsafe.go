package breakerretry

import (
	"context"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

// Composed: the retry policy is outside the breaker in one executor, so
// each of its 8 attempts is a failure of a breaker that opens after 5.
func (d *Dialer) Composed(ctx context.Context, url string) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(7).WithBackoff(time.Second, 30*time.Second).WithJitterFactor(0.5).Build()
	cb := circuitbreaker.NewBuilder[any]().HandleErrors(context.DeadlineExceeded).WithFailureThreshold(5).Build()
	return failsafe.With[any](rp, cb).WithContext(ctx).Run(func() error { // want `the breaker counts every attempt of the failsafe Run at breakerretry/failsafe.go:17 \(a retry policy composed outside the breaker\) as a failure: one request that fails all 8 attempts is 8 failures in a row, and it opens after 5 failures`
		_, err := d.ping(ctx, url)
		return err
	})
}

// Inner: the breaker composed inside a retry by Compose.
func (d *Dialer) Inner(ctx context.Context, url string) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxAttempts(6).WithDelay(time.Second).WithJitter(time.Second).Build()
	cb := circuitbreaker.NewBuilder[any]().HandleErrors(context.DeadlineExceeded).WithFailureThreshold(3).Build()
	return failsafe.With[any](rp).Compose(cb).WithContext(ctx).Run(func() error { // want `the breaker counts every attempt of the failsafe Run at breakerretry/failsafe.go:27 \(a retry policy composed outside the breaker\) as a failure: one request that fails all 6 attempts is 6 failures in a row, and it opens after 3 failures`
		_, err := d.ping(ctx, url)
		return err
	})
}

// Quiet: the breaker is outside the retry, so a request counts once.
func (d *Dialer) Outside(ctx context.Context, url string) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(7).WithBackoff(time.Second, 30*time.Second).WithJitterFactor(0.5).Build()
	cb := circuitbreaker.NewBuilder[any]().HandleErrors(context.DeadlineExceeded).WithFailureThreshold(5).Build()
	return failsafe.With[any](cb, rp).WithContext(ctx).Run(func() error {
		_, err := d.ping(ctx, url)
		return err
	})
}

// Quiet: 4 attempts never make the 5 failures that open it.
func (d *Dialer) Fewer(ctx context.Context, url string) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(3).WithBackoff(time.Second, 30*time.Second).WithJitterFactor(0.5).Build()
	cb := circuitbreaker.NewBuilder[any]().HandleErrors(context.DeadlineExceeded).WithFailureThreshold(5).Build()
	return failsafe.With[any](rp, cb).WithContext(ctx).Run(func() error {
		_, err := d.ping(ctx, url)
		return err
	})
}
