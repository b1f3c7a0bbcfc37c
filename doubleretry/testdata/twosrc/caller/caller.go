// Package caller retries calls of glclient, whose client retries 5 times
// itself: the message says 5, not a library default assumed.
package caller

import (
	"context"
	"net/http"
	"time"

	"example.com/t/twosrc/glclient"
)

func Fetch(ctx context.Context, c *glclient.Client, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at caller/caller.go:15 wraps retryablehttp.Client.Do at glclient/glclient.go:62 \(through glclient.\(\*Client\).Get, glclient.\(\*Client\).Do\), which retries 5 more times by default \(client built at glclient/glclient.go:29\): up to 18 requests per call`
		resp, e := c.Get(ctx, url)
		if e == nil {
			return resp, nil
		}
		err = e
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, err
}

// FetchMaybeOnce: the inner count is not known (one path does not retry):
// no number is claimed, not 5 and not a default.
func FetchMaybeOnce(ctx context.Context, c *glclient.Client, url string, once bool) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ { // want `wraps retryablehttp.Client.Do at glclient/glclient.go:80 \(through glclient.\(\*Client\).GetMaybeOnce, glclient.\(\*Client\).DoNoRetryPath\), which retries by itself \(client built at glclient/glclient.go:29\): requests multiply per call \(3 × unknown\)`
		resp, e := c.GetMaybeOnce(ctx, url, once)
		if e == nil {
			return resp, nil
		}
		err = e
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, err
}
