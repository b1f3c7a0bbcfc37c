// Package remote holds the calls the retries in the other packages repeat,
// with their declared p99 latencies.
package remote

import (
	"context"
	"net/http"
)

// Search asks the search service. Its p99 under a cold cache is four seconds.
//
//retryvet:p99 4s
func Search(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// Embed is fast: its p99 is 300ms.
//
//retryvet:p99 300ms
func Embed(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}
