package shapes

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

func sleepOrDone(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// retryHandler says whether a response is worth another attempt and how
// long to wait first.
type retryHandler interface {
	ShouldRetry(resp *http.Response, err error) (bool, time.Duration)
}

type rateLimitHandler struct{}

// ShouldRetry waits what the server asks on a 429.
func (rateLimitHandler) ShouldRetry(resp *http.Response, err error) (bool, time.Duration) {
	if err != nil || resp.StatusCode != http.StatusTooManyRequests {
		return false, 0
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		return true, time.Duration(s) * time.Second
	}
	return true, time.Second
}

// The wait is in the condition of an if (the loop's only wait), and its
// duration comes from a handler behind an interface whose implementation
// here reads Retry-After.
func ViaHandler(ctx context.Context, c *http.Client, req *http.Request, h retryHandler) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 .*retryafter=yes`
		resp, err := c.Do(req)
		if err == nil && resp.StatusCode < 400 {
			return resp, nil
		}
		retry, wait := h.ShouldRetry(resp, err)
		if !retry {
			return resp, err
		}
		if !sleepOrDone(ctx, wait) {
			return nil, ctx.Err()
		}
	}
	return nil, nil
}
