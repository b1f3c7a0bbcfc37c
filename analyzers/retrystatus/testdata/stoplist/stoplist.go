// Package stoplist holds retries that give up on a few permanent codes
// they name and retry every other failure: the permanent codes left out
// are sent again on every attempt. Beside them, decisions that give up on
// the whole 4xx range, that read the error before going round, or that
// leave out only one code stay quiet.
package stoplist

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

type StatusError struct {
	Code int
}

func (e *StatusError) Error() string { return fmt.Sprintf("status %d", e.Code) }

type Client struct {
	hc *http.Client
}

func (c *Client) put(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return resp, &StatusError{Code: resp.StatusCode}
	}
	return resp, nil
}

// Upload gives up on 401 and 422 only. Reported.
func (c *Client) Upload(ctx context.Context, url string) error {
	return backoff.Retry(func() error {
		resp, err := c.put(ctx, url)
		if err != nil && resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusUnprocessableEntity) { // want `retry decision gives up on 401 \(unauthorized\), 422 \(unprocessable\) but retries 400 \(bad request\), 403 \(forbidden\), 404 \(not found\), 413 \(payload too large\): the same request fails the same way on each of 6 attempts; give up on every 4xx but 408 and 429`
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 5), ctx))
}

// Fetch, a loop, leaves on 404 and 401 and goes round on the rest.
// Reported.
func (c *Client) Fetch(ctx context.Context, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 4; i++ {
		var resp *http.Response
		resp, err = c.put(ctx, url)
		if err == nil {
			return resp, nil
		}
		if resp != nil && (resp.StatusCode == 404 || resp.StatusCode == 401) { // want `retry decision gives up on 401 \(unauthorized\), 404 \(not found\) but retries 400 \(bad request\), 403 \(forbidden\), 413 \(payload too large\), 422 \(unprocessable\)`
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return nil, err
}

// UploadRange gives up on every 4xx but 429. Quiet.
func (c *Client) UploadRange(ctx context.Context, url string) error {
	return backoff.Retry(func() error {
		resp, err := c.put(ctx, url)
		if err != nil && resp != nil && resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != 429 {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 5), ctx))
}

// UploadRead gives up on 401, and goes round on the rest only when the
// error says the server was busy. Quiet.
func (c *Client) UploadRead(ctx context.Context, url string) error {
	return backoff.Retry(func() error {
		resp, err := c.put(ctx, url)
		if err == nil {
			return nil
		}
		if resp != nil && resp.StatusCode == 401 {
			return backoff.Permanent(err)
		}
		if strings.Contains(err.Error(), "busy") {
			return err
		}
		return backoff.Permanent(err)
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 5), ctx))
}

// UploadMost gives up on every permanent code but 422. Quiet: one code
// left out is a choice (a validation race the server settles), not a
// list with holes.
func (c *Client) UploadMost(ctx context.Context, url string) error {
	return backoff.Retry(func() error {
		resp, err := c.put(ctx, url)
		if err != nil && resp != nil {
			switch resp.StatusCode {
			case 400, 401, 403, 404, 413:
				return backoff.Permanent(err)
			}
		}
		return err
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 5), ctx))
}
