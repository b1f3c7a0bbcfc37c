// Package llm is the pipeline behind the proxy: a deadline-aware retry
// around a model call that needs more time than the proxy gives.
package llm

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client calls the model.
type Client struct {
	HTTP *http.Client
	URL  string
}

var waits = []time.Duration{7 * time.Second, 11 * time.Second}

// reserve covers a full call at the slow end plus a call to the backup model.
const reserve = 65 * time.Second

// call makes one request.
//
//retryvet:p99 40s
func (c *Client) call(ctx context.Context, prompt string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, strings.NewReader(prompt))
	if err != nil {
		return "", err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Complete asks the model, retrying only while the caller's deadline
// leaves room for the wait, a slow call and the backup.
func (c *Client) Complete(ctx context.Context, prompt string) (string, error) {
	out, err := c.call(ctx, prompt)
	for i := 0; i < 2 && err != nil; i++ {
		wait := waits[i]
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+reserve {
			return "", err
		}
		time.Sleep(wait)
		out, err = c.call(ctx, prompt)
	}
	return out, err
}
