// Package stillcounter: a retry loop whose for clause tests a count the
// function never changes does not end on it.
package stillcounter

import (
	"context"
	"errors"
	"net/http"
	"time"
)

const maxRetries = 5

var errGone = errors.New("gone")

// Subscribe tests retries in its clause but never steps it: it retries
// for as long as the call fails.
func Subscribe(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	retries := 0
	for retries < maxRetries { // want `retry loop tests retries < maxRetries but never changes retries: the count never ends it, so it retries for as long as the operation fails \(waits 5s, 5s, 5s, \.\.\.\); step retries on each attempt`
		if retries > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Second):
			}
		}
		resp, err := c.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
	}
	return nil, errGone
}

// Stepped steps the count in the body: bounded, quiet here; the wait after
// the step sees the next attempt's count (1s first, not 0s).
func Stepped(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	retries := 0
	for retries < maxRetries {
		resp, err := c.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
		retries++
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(retries) * time.Second): // want `no jitter: retry loop waits 1s, 2s, 3s, 4s with no random part`
		}
	}
	return nil, errGone
}

// Clause steps it in the for clause: quiet.
func Clause(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	retries := 0
	for ; retries < maxRetries; retries++ {
		resp, err := c.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(retries+1) * time.Second): // want `no jitter: retry loop waits 1s, 2s, 3s, 4s with no random part`
		}
	}
	return nil, errGone
}

// Helper steps it through a pointer: quiet.
func Helper(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	retries := 0
	for retries < maxRetries {
		resp, err := c.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
		if err := pause(ctx, &retries); err != nil {
			return nil, err
		}
	}
	return nil, errGone
}

func pause(ctx context.Context, n *int) error {
	*n++
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(*n) * time.Second):
		return nil
	}
}

// Budget lowers the bound instead: quiet.
func Budget(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) {
	used, budget := 0, maxRetries
	for used < budget {
		resp, err := c.Do(req.WithContext(ctx))
		if err == nil {
			return resp, nil
		}
		budget--
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, errGone
}
