// Package u hands operations to h's helper.
package u

import (
	"context"
	"net/http"
	"time"

	"example.com/rm/helpers/h"
)

func get(ctx context.Context, url string) error { // want get:`^remote$`
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// fetchRetrying retries get itself: 3 attempts.
func fetchRetrying(ctx context.Context, url string) error { // want fetchRetrying:`reaches retry loop\(3\); remote`
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, url); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// Nested hands a retrying function to the helper: 4 x 3 attempts.
func Nested(ctx context.Context, url string) error { // want Nested:`reaches retry helper h.Retry\(4\) > retry loop\(3\); remote`
	return h.Retry(ctx, func() error { return fetchRetrying(ctx, url) })
}

// ByValue hands a function value.
func ByValue(ctx context.Context) error { // want ByValue:`reaches retry helper h.Retry\(4\) > retry loop\(3\); remote`
	return h.Retry(ctx, retrying)
}

func retrying() error { return fetchRetrying(context.Background(), "http://svc") } // want retrying:`reaches retry loop\(3\); remote`

// Plain hands a plain call: the helper's layer alone.
func Plain(ctx context.Context, url string) error { // want Plain:`reaches retry helper h.Retry\(4\); remote`
	return h.Retry(ctx, func() error { return get(ctx, url) })
}

// NotHelper: Once does not retry.
func NotHelper(ctx context.Context, url string) error { // want NotHelper:`reaches retry loop\(3\); remote`
	return h.Once(func() error { return fetchRetrying(ctx, url) })
}
