// Package testvar holds retries whose waits come from package variables
// that the tests shorten. The verdict is on the production values: under
// the one-second floor they are quiet; above it, reported with the
// production waits. Each has the caller's ctx in scope and ignores it.
package testvar

import (
	"context"
	"errors"
	"net/http"
	"time"
)

var (
	retryDelay = 100 * time.Millisecond
	slowDelay  = time.Second
)

var errGaveUp = errors.New("gave up")

// 100ms, 200ms, 400ms between attempts: 700ms, under the floor, which
// does not read the 800ms after the last failure. Quiet.
func Fetch(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(retryDelay << i)
	}
	return nil, errGaveUp
}

// 100ms three times between attempts: 300ms. Quiet.
func FetchFlat(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(retryDelay)
	}
	return nil, errGaveUp
}

// 1s, 2s, 3s in production, whatever the tests set, and 4s after the
// last failure.
func FetchSlow(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(slowDelay * time.Duration(i+1)) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 4 attempts with waits 1s, 2s, 3s, then 4s after the last failure, and nothing bounds it in time: worst case 10s.*no jitter: retry loop waits 1s, 2s, 3s with no random part`
	}
	return nil, errGaveUp
}

// get sends a GET on ctx.
func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}
