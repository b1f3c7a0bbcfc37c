package shapes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
)

// Jitter is whether a random source reaches the wait, whatever the names.

const maxTries = 4

// rateRetry's "jitter" is a constant 20% of the backoff: no random
// source reaches the delay it returns. A Retry-After replaces the delay,
// so the schedule is the one of clients the server sent no hint.
func rateRetry(attempts int, err error) (bool, int64, error) {
	var apierr *anthropic.Error
	if !errors.As(err, &apierr) {
		return false, 0, err
	}
	if apierr.StatusCode != 429 && apierr.StatusCode != 529 {
		return false, 0, err
	}
	if attempts > maxTries {
		return false, 0, fmt.Errorf("maximum retry attempts reached: %d", maxTries)
	}
	retryMs := 0
	retryAfterValues := apierr.Response.Header.Values("Retry-After")
	backoffMs := 2000 * (1 << (attempts - 1))
	jitterMs := int(float64(backoffMs) * 0.2)
	retryMs = backoffMs + jitterMs
	if len(retryAfterValues) > 0 {
		if _, err := fmt.Sscanf(retryAfterValues[0], "%d", &retryMs); err == nil {
			retryMs = retryMs * 1000
		}
	}
	return true, int64(retryMs), nil
}

func constantJitter(ctx context.Context, c anthropic.Client, params anthropic.MessageNewParams) (*anthropic.Message, error) {
	attempts := 0
	for { // want `retry loop: attempts=5 jitter=no deadline=yes cancellable=yes retryafter=yes waits-without-retry-after=2.4s,4.8s,9.6s,19.2s`
		attempts++
		msg, err := c.Messages.New(ctx, params) // want `anthropic Messages.New`
		if err != nil {
			retry, after, retryErr := rateRetry(attempts, err)
			if retryErr != nil {
				return nil, retryErr
			}
			if retry {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Duration(after) * time.Millisecond):
					continue
				}
			}
			return nil, retryErr
		}
		return msg, nil
	}
}

// jitter is named for what it should do, but it draws nothing.
func jitter(d time.Duration) time.Duration { return d + d/5 }

func namedJitter(ctx context.Context) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1.2s,2.4s jitter=no`
		if _, err = do(ctx); err == nil {
			return nil
		}
		time.Sleep(jitter(time.Second << i))
	}
	return err
}

// spread draws its wait: a random source reaches it through the helper.
func spread(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2)
}

func drawnJitter(ctx context.Context) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 jitter=yes`
		if _, err = do(ctx); err == nil {
			return nil
		}
		time.Sleep(spread(time.Second << i))
	}
	return err
}

// clockJitter uses a clock's low digits as a cheap draw.
func clockJitter(ctx context.Context) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 jitter=yes`
		if _, err = do(ctx); err == nil {
			return nil
		}
		extra := time.Duration(time.Now().UnixNano()%1000) * time.Millisecond
		time.Sleep(time.Second + extra)
	}
	return err
}

type fixedClient struct {
	hc         *http.Client
	maxRetries int
	retryDelay time.Duration
}

func newFixedClient(d time.Duration) *fixedClient {
	return &fixedClient{hc: http.DefaultClient, maxRetries: 3, retryDelay: d}
}

func (f *fixedClient) pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(f.retryDelay):
		return nil
	}
}

// fieldDelay waits a delay set at construction: one value for every wait.
func (f *fixedClient) fieldDelay(ctx context.Context) error {
	var err error
	for attempt := 0; attempt <= f.maxRetries; attempt++ { // want `retry loop: attempts=4 jitter=no`
		if _, err = do(ctx); err == nil {
			return nil
		}
		if err := f.pause(ctx); err != nil {
			return err
		}
	}
	return err
}

// hidden waits what a function value returns: nothing says whether it
// draws.
func hidden(ctx context.Context, next func(int) time.Duration) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 jitter=unknown`
		if _, err = do(ctx); err == nil {
			return nil
		}
		time.Sleep(next(i))
	}
	return err
}
