package retryafter429

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// statusOf is a wrapper that returns the response's status: a test of its
// result against 429 is a status test like resp.StatusCode == 429.
func statusOf(resp *http.Response) int { return resp.StatusCode }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Wrapped retries a 429 told through the wrapper and waits its own
// backoff, never the server's Retry-After.
func Wrapped(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if statusOf(resp) == http.StatusTooManyRequests { // want `retry-after ignored: retry loop retries 429 but waits`
			resp.Body.Close()
			if err := sleepCtx(ctx, time.Second<<i+rand.N(time.Second)); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errors.New("rate limited")
}

// WrappedHint tells the 429 the same way and waits what the server asks:
// quiet.
func WrappedHint(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if statusOf(resp) == http.StatusTooManyRequests {
			wait := time.Second<<i + rand.N(time.Second)
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				wait = time.Duration(s) * time.Second
			}
			resp.Body.Close()
			if err := sleepCtx(ctx, wait); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
	return nil, errors.New("rate limited")
}
