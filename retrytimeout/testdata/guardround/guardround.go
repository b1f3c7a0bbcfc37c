// Package guardround: a retry loop written `for { ...; if retryable &&
// retries < max { retries++; wait; continue }; break }` goes round only
// through the guarded branch, so the count in the guard bounds it.
package guardround

import (
	"context"
	"net/http"
	"time"
)

func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Send retries 5xx answers three times: four attempts, waits 1s, 2s, 3s.
func Send(ctx context.Context, hc *http.Client, req *http.Request) (*http.Response, error) {
	retries := 0
	for {
		resp, err := hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 && retries < 3 {
			retries++
			resp.Body.Close()
			if err := pause(ctx, time.Duration(retries)*time.Second); err != nil { // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}

type Client struct {
	hc         *http.Client
	maxRetries int
}

// Do is bounded by a setting: how many attempts is not known, and the
// message says so rather than "unbounded".
func (c *Client) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	retries := 0
	for {
		resp, err = c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 500 && retries < c.maxRetries {
			retries++
			resp.Body.Close()
			if err := pause(ctx, time.Duration(retries)*time.Second); err != nil { // want `no jitter: retry loop waits 1s, 2s, 3s, \.\.\. \(as many as its attempts, whose number is not known statically\)`
				return nil, err
			}
			continue
		}
		break
	}
	return resp, nil
}

// Forever has a second way round besides the guarded branch: the count
// does not bound it.
func (c *Client) Forever(ctx context.Context, req *http.Request) (*http.Response, error) {
	retries := 0
	for {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			continue
		}
		if resp.StatusCode >= 500 && retries < 3 {
			retries++
			resp.Body.Close()
			if err := pause(ctx, time.Duration(retries)*time.Second); err != nil { // want `no jitter: retry loop waits 1s, 2s, 3s, \.\.\. \(unbounded attempts\)`
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}
