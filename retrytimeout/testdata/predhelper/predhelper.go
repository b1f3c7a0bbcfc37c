// Package predhelper: a retry that asks a helper of the package whether
// a status is worth another attempt is read through the helper, wherever
// the test of the code is written.
package predhelper

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

func isRetryable(code int) bool {
	return code == 429 || (code >= 500 && code <= 504) // want `retry-after ignored: retry loop retries 429 but waits 1s, 2s, 4s without reading the Retry-After header`
}

// Get asks isRetryable and gives up on its no.
func Get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, nil
		}
		resp.Body.Close()
		if !isRetryable(resp.StatusCode) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second << attempt): // want `no jitter`
		}
	}
	return nil, nil
}

func retryStatus(code int) bool { return code == 429 || code >= 500 }

// Honours reads Retry-After: quiet on that.
func Honours(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		resp.Body.Close()
		if !retryStatus(resp.StatusCode) {
			return nil, nil
		}
		wait := time.Second << attempt
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait): // want `no jitter`
		}
	}
	return nil, nil
}

func isPermanent(code int) bool { return code == 429 || code == 400 }

// Stops gives up on what isPermanent names (429 among them): not a retry
// of 429, quiet on Retry-After.
func Stops(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		resp.Body.Close()
		if isPermanent(resp.StatusCode) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second << attempt): // want `no jitter`
		}
	}
	return nil, nil
}

func matchCode(code int, extra []int) bool {
	if len(extra) > 5 {
		return false
	}
	return code >= 500
}

// Transport keeps the helper's answer in a variable and breaks on its no:
// the loop is a retry (its sleep ignores the request's context).
type Transport struct {
	Base  http.RoundTripper
	Codes []int
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for n := 0; n < 3; n++ {
		if n > 0 {
			time.Sleep(time.Duration(n) * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done`
		}
		resp, err = t.Base.RoundTrip(req)
		if err != nil {
			continue
		}
		retry := matchCode(resp.StatusCode, t.Codes)
		if !retry {
			break
		}
		resp.Body.Close()
	}
	return resp, err
}
