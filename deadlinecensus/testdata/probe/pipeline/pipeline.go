// Package pipeline retries a remote call: the census has a pipeline here.
package pipeline

import (
	"context"
	"net/http"
	"time"
)

func Fetch(ctx context.Context, c *http.Client, url string) (*http.Response, error) { // want `census probe: a pipeline may be here`
	var err error
	for i := 0; i < 3; i++ {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		var resp *http.Response
		resp, err = c.Do(req)
		if err == nil {
			return resp, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return nil, err
}
