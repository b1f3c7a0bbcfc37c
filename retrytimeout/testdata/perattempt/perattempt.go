// Package perattempt holds retries that give each attempt its own deadline
// and then end the whole retry when that deadline passes, beside the ones
// that tell the attempt's deadline from the caller's.
package perattempt

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"time"
)

var errGaveUp = errors.New("gave up")

func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

func backoffWait(ctx context.Context, attempt int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(rand.Int63n(int64(time.Second << attempt)))):
		return nil
	}
}

// The per-attempt context's Err is tested before the retry decision: an
// attempt that takes longer than 10s ends the retry.
func attemptErr(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := get(actx, c, url)
		cancel()
		if actx.Err() != nil { // want `per-attempt timeout ends the retry: actx is made for each attempt at perattempt/perattempt.go:\d+, but this test leaves the retry loop \(3 attempts\) before the retry decision when actx is done, so one attempt that hits its own 10s timeout ends the whole retry instead of being retried; test ctx.Err\(\) there`
			return nil, actx.Err()
		}
		if err == nil {
			return resp, nil
		}
		if err := backoffWait(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// errors.Is(err, context.DeadlineExceeded) on the attempt's error is true
// when the attempt's own deadline passed, too.
func deadlineExceeded(parent context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		ctx, cancel := context.WithTimeout(parent, 5*time.Second)
		resp, err := get(ctx, c, url)
		cancel()
		if err != nil && errors.Is(err, context.DeadlineExceeded) { // want `per-attempt timeout ends the retry: ctx is made for each attempt .* hits its own 5s timeout .*test parent.Err\(\) there`
			break
		}
		if err == nil {
			return resp, nil
		}
		if err := backoffWait(parent, attempt); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// The caller's context is tested: quiet.
func callerErr(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := get(actx, c, url)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			return resp, nil
		}
		if err := backoffWait(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// DeadlineExceeded ends the retry only when the caller is done too: quiet.
func bothDone(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := get(actx, c, url)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, err
		}
		if err == nil {
			return resp, nil
		}
		if err := backoffWait(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// An attempt that timed out is retried: quiet.
func retriesTimeout(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := get(actx, c, url)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		if err == nil {
			return resp, nil
		}
		if err := backoffWait(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}

// No per-attempt deadline: DeadlineExceeded is the caller's. Quiet.
func callerDeadline(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := get(ctx, c, url)
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		if err == nil {
			return resp, nil
		}
		if err := backoffWait(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}
