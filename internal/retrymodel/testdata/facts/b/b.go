// Package b holds a retry that package a reaches through a call.
package b

import (
	"context"
	"net/http"
	"time"
)

// Fetch retries a GET three times.
func Fetch(ctx context.Context, c *http.Client, req *http.Request) (*http.Response, error) { // want Fetch:`reaches retry loop\(3\); remote`
	var err error
	for i := 0; i < 3; i++ {
		resp, e := c.Do(req.WithContext(ctx))
		if e == nil {
			return resp, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}

// Sleep waits unless ctx is done first.
func Sleep(ctx context.Context, d time.Duration) error { // want Sleep:`waits\(ctx\)`
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

//retryvet:p99 40s
func Slow(ctx context.Context) error { return nil } // want Slow:`p99=40s`

// Local has no retry and no fact.
func Local(x int) int { return x + 1 }
