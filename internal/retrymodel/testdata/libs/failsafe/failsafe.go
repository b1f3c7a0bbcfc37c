// Package failsafe exercises github.com/failsafe-go/failsafe-go's retry
// policy run through an executor.
package failsafe

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
	"github.com/failsafe-go/failsafe-go/timeout"
)

func call(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

var errFatal = errors.New("fatal")

// Defaults: 3 attempts, no delay, no context.
func defaults(ctx context.Context) error {
	return failsafe.With(retrypolicy.NewWithDefaults[any]()).Run(func() error { return call(ctx) }) // want `^failsafe Run kind=library attempts=3 waits=0s,0s jitter=no deadline=no cancel=unknown retryafter=no elapsed=- .*classifier=false .*ctx=false body=true ops=1`
}

// A builder chain: the option applied last wins; backoff capped, jitter,
// a Handle condition, the executor bound to ctx.
func configured(ctx context.Context) error {
	rp := retrypolicy.NewBuilder[any]().
		HandleErrors(context.DeadlineExceeded).
		WithMaxRetries(2).
		WithMaxAttempts(5).
		WithBackoff(time.Second, 3*time.Second).
		WithJitterFactor(0.25).
		Build()
	return failsafe.With(rp).WithContext(ctx).Run(func() error { return call(ctx) }) // want `^failsafe Run kind=library attempts=5 waits=1s,2s,3s,3s jitter=yes deadline=yes cancel=yes retryafter=no .*classifier=true .*ctx=true body=true`
}

// A constant delay with no context: the wait ignores cancellation; a
// breaker composed inside.
func constant(ctx context.Context) (int, error) {
	rp := retrypolicy.NewBuilder[int]().WithMaxRetries(3).WithDelay(2 * time.Second).Build()
	cb := circuitbreaker.NewWithDefaults[int]()
	return failsafe.With[int](rp, cb).Get(func() (int, error) { return 1, call(ctx) }) // want `^failsafe Get kind=library attempts=4 waits=2s,2s,2s jitter=no deadline=no cancel=no retryafter=no elapsed=- .*ctx=false`
}

// No bound on the attempts, a time limit and a random delay.
func forever(ctx context.Context) error {
	rp := retrypolicy.NewBuilder[any]().WithMaxRetries(-1).WithMaxDuration(time.Minute).WithRandomDelay(time.Second, 5*time.Second).Build()
	return failsafe.With(rp).WithContext(ctx).Run(func() error { return call(ctx) }) // want `^failsafe Run kind=library attempts=unbounded waits=1s,1s,1s,1s,1s jitter=yes deadline=yes cancel=yes retryafter=no elapsed=60s`
}

// An executor held in a struct field.
type client struct {
	exec failsafe.Executor[any]
}

func newClient() *client {
	return &client{exec: failsafe.With[any](retrypolicy.NewBuilder[any]().WithMaxAttempts(2).Build())}
}

func (c *client) do(ctx context.Context) error {
	return c.exec.WithContext(ctx).Run(func() error { return call(ctx) }) // want `^failsafe Run kind=library attempts=2 waits=0s jitter=no deadline=yes`
}

// Not layers: an executor with no retry policy, and one whose policies
// come from a slice.
func breakerOnly(ctx context.Context) error {
	cb := circuitbreaker.NewWithDefaults[any]()
	return failsafe.With[any](cb, timeout.New[any](time.Second)).Run(func() error { return call(ctx) })
}

func fromSlice(ctx context.Context, ps []failsafe.Policy[any]) error {
	return failsafe.With(ps...).Run(func() error { return call(ctx) })
}
