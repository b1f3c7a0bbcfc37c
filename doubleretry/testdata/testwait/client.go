// Package testwait: a loop around a call that retries by itself multiplies
// the requests in production code; the same loop in a test, waiting for
// the test's own server to answer, is the test's concern and stays quiet.
package testwait

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second)):
		return nil
	}
}

// Ping sends up to 3 requests.
func Ping(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := http.DefaultClient.Do(req)
		if derr == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			derr = fmt.Errorf("status %d", resp.StatusCode)
		}
		err = derr
		if werr := pause(ctx); werr != nil {
			return werr
		}
	}
	return err
}

// Healthy retries Ping: 3 x 3 requests.
func Healthy(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at testwait/client.go:50 wraps retry loop \(3 attempts\) at testwait/client.go:26 \(through testwait.Ping\): up to 9 requests per call`
		if err = Ping(ctx, url); err == nil {
			return nil
		}
		if werr := pause(ctx); werr != nil {
			return werr
		}
	}
	return err
}
