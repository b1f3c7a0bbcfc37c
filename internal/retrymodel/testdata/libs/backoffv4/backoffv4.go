// Package backoffv4 exercises github.com/cenkalti/backoff/v4.
package backoffv4

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
)

type svc struct{ hc *http.Client }

func (s *svc) fetch(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	_, err := s.hc.Do(req)
	return err
}

// Library defaults: no retry bound, 15m elapsed limit, ±50% jitter, no context.
func defaults(s *svc, ctx context.Context) error {
	return backoff.Retry(func() error { return s.fetch(ctx) }, backoff.NewExponentialBackOff()) // want `^backoff\.Retry kind=library attempts=unbounded waits=500ms,750ms,1\.125s,1\.6875s,2\.53125s jitter=yes deadline=no cancel=no retryafter=no elapsed=15m assumed=false client=- classifier=false perattempt=- ctx=false body=true ops=1`
}

// Field assignments, WithMaxRetries and WithContext.
func configured(s *svc, ctx context.Context) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 1 * time.Second
	b.Multiplier = 2
	b.MaxInterval = 5 * time.Second
	b.RandomizationFactor = 0
	b.MaxElapsedTime = 0
	return backoff.Retry(func() error { // want `^backoff\.Retry kind=library attempts=5 waits=1s,2s,4s,5s jitter=no deadline=yes cancel=yes .*elapsed=0s .*classifier=true .*ctx=true body=true`
		if err := s.fetch(ctx); err != nil {
			if errors.Is(err, context.Canceled) {
				return backoff.Permanent(err)
			}
			return err
		}
		return nil
	}, backoff.WithContext(backoff.WithMaxRetries(b, 4), ctx))
}

// Functional options.
func options(s *svc, ctx context.Context) error {
	b := backoff.NewExponentialBackOff(backoff.WithInitialInterval(2*time.Second), backoff.WithMaxElapsedTime(30*time.Second))
	op := func() error { return s.fetch(ctx) }
	return backoff.RetryNotify(op, backoff.WithMaxRetries(b, 2), func(err error, d time.Duration) {}) // want `^backoff\.RetryNotify kind=library attempts=3 waits=2s,3s jitter=yes deadline=no .*elapsed=30s .*body=true`
}

const retries = 3

// Constant and zero backoffs; a method value as the operation.
func constant(s *svc, ctx context.Context) error {
	op := func() error { return s.fetch(ctx) }
	if err := backoff.Retry(op, backoff.WithMaxRetries(backoff.NewConstantBackOff(500*time.Millisecond), retries)); err != nil { // want `^backoff\.Retry kind=library attempts=4 waits=500ms,500ms,500ms jitter=no`
		return err
	}
	if err := backoff.Retry(op, backoff.WithMaxRetries(&backoff.ZeroBackOff{}, 1)); err != nil { // want `^backoff\.Retry kind=library attempts=2 waits=0s jitter=no`
		return err
	}
	return backoff.Retry(s.ping, &backoff.StopBackOff{}) // want `^backoff\.Retry kind=library attempts=1 waits=- .*body=false ops=0 opfuncs=ping`
}

func (s *svc) ping() error { return s.fetch(context.Background()) }

// RetryWithData and a backoff handed in from outside: the policy is unknown.
func data(s *svc, ctx context.Context, b backoff.BackOff) (int, error) {
	return backoff.RetryWithData(func() (int, error) { return 1, s.fetch(ctx) }, b) // want `^backoff\.RetryWithData kind=library attempts=- waits=- jitter=unknown deadline=unknown`
}

// A backoff assigned twice cannot be followed.
func twice(s *svc, ctx context.Context, slow bool) error {
	b := backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 2)
	if slow {
		b = backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Minute), 2)
	}
	return backoff.Retry(func() error { return s.fetch(ctx) }, b) // want `^backoff\.Retry kind=library attempts=- `
}

// Not layers: building a policy, asking it for a wait.
func notLayers() time.Duration {
	b := backoff.NewExponentialBackOff()
	_ = backoff.WithMaxRetries(b, 3)
	_ = backoff.Permanent(errors.New("x"))
	return b.NextBackOff()
}

// A per-attempt timeout in the operation; the policy built by a helper (its
// context is the helper's parameter: the caller's 1m timeout is not seen).
func newPolicy(ctx context.Context) backoff.BackOff {
	b := backoff.NewExponentialBackOff()
	b.MaxElapsedTime = 2 * time.Minute
	return backoff.WithContext(backoff.WithMaxRetries(b, 2), ctx)
}

func perAttempt(s *svc, ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return backoff.Retry(func() error { // want `^backoff\.Retry kind=library attempts=3 waits=500ms,750ms jitter=yes deadline=yes cancel=yes .*elapsed=120s .*perattempt=5s ctx=true`
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return s.fetch(actx)
	}, newPolicy(ctx))
}

// An operation made by a function of the package.
func makeOp(s *svc, ctx context.Context) backoff.Operation {
	return func() error { return s.fetch(ctx) }
}

func made(s *svc, ctx context.Context) error {
	return backoff.Retry(makeOp(s, ctx), backoff.WithMaxRetries(&backoff.ZeroBackOff{}, 2)) // want `^backoff\.Retry kind=library attempts=3 waits=0s,0s .*body=true ops=1`
}

type notReady struct{}

func (notReady) Error() string { return "not ready" }

// A poll: failures of the call are permanent, only "not ready" runs again.
// It runs again after success: not a retry layer.
func poll(s *svc, ctx context.Context) error {
	b := backoff.NewExponentialBackOff()
	b.MaxElapsedTime = 5 * time.Minute
	return backoff.Retry(func() error {
		if err := s.fetch(ctx); err != nil {
			return backoff.Permanent(fmt.Errorf("fetch: %w", err))
		}
		if !ready() {
			return &notReady{}
		}
		return nil
	}, backoff.WithContext(b, ctx))
}

func ready() bool { return true }

// Transport errors permanent, 5xx retried with a fresh error: a retry.
func statusOnly(ctx context.Context) error {
	return backoff.Retry(func() error { // want `^backoff\.Retry kind=library attempts=4 `
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return backoff.Permanent(err)
		}
		if resp.StatusCode >= 500 {
			return fmt.Errorf("server error %d", resp.StatusCode)
		}
		return nil
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 3))
}
