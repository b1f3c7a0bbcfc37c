// Package durfunc waits what another package's function returns for the
// attempt number.
package durfunc

import (
	"context"
	"net/http"
	"time"

	"example.com/t/durfunc/backoff"
)

func get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Register: 3 attempts, waits Do(1), Do(2) = 100ms, 600ms between them:
// under a second, nothing to bound (the floor reads the waits between
// attempts; the Do(3) after the last failure does not count). Quiet.
func Register(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, c, url); err == nil {
			return nil
		}
		time.Sleep(backoff.Do(i + 1))
	}
	return err
}

// Sync: 5 attempts, waits 1s, 2s, 4s, 8s, and 16s after the last failure,
// after the caller may have gone.
func Sync(ctx context.Context, c *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = get(ctx, c, url); err == nil {
			return nil
		}
		time.Sleep(backoff.Seconds(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done.*attempt-only: retry loop makes 5 attempts with waits 1s, 2s, 4s, 8s, then 16s after the last failure, and nothing bounds it in time: worst case 31s of waiting`
	}
	return err
}
