// Package status: a retry classifier that enumerates 5xx codes and
// retries every 429 (retrystatus), around calls to an LLM API's messages
// endpoint (which answers 529 when overloaded).
package status

import (
	"context"
	"net/http"
	"time"
)

func retryable(code int) bool {
	return code == 500 || code == 502 || code == 503 || code == 429
}

// Get retries while the status is one of the enumerated codes.
func Get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/messages", nil)
		if rerr != nil {
			return nil, rerr
		}
		resp, err = c.Do(req)
		if err == nil && !retryable(resp.StatusCode) {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second << attempt):
		}
	}
	return resp, err
}
