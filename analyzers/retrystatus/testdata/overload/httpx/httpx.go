// Package httpx is a shared HTTP helper whose retry lists 500, 502, 503
// and 504: nothing here says which API it sends to, so its missing 529 is
// told at the calls that send to an API answering 529.
package httpx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

type Client struct{ hc *http.Client }

func retryable(code int) bool {
	return code == 429 || code == 500 || code == 502 || code == 503 || code == 504
}

func (c *Client) Post(ctx context.Context, url string, body []byte) ([]byte, error) { // want Post:`retry loop at httpx/httpx.go:23 gives up on 529 \(lists 500, 502, 503, 504 at httpx/httpx.go:18\)`
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			last = err
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 300 {
				return b, nil
			}
			if !retryable(resp.StatusCode) {
				return nil, errors.New(resp.Status)
			}
			last = errors.New(resp.Status)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return nil, last
}

// retryableRange cuts the 5xx range at 504.
func retryableRange(code int) bool {
	return code == 429 || (code >= 500 && code <= 504)
}

// Get retries what retryableRange says.
func (c *Client) Get(ctx context.Context, url string) ([]byte, error) { // want Get:`retry loop at httpx/httpx.go:\d+ gives up on 529 \(lists 500, 501, 502, 503, 504 at httpx/httpx.go:\d+\)`
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			last = err
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 300 {
				return b, nil
			}
			if !retryableRange(resp.StatusCode) {
				return nil, errors.New(resp.Status)
			}
			last = errors.New(resp.Status)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return nil, last
}
