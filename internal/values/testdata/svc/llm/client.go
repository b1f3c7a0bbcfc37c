// Package llm is a pipeline: a deadline-aware retry around a model call
// whose p99 only the values file knows.
package llm

import (
	"context"
	"errors"
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

var errRefused = errors.New("llm: refused")

var waits = []time.Duration{7 * time.Second, 11 * time.Second}

// reserve covers a slow call plus the backup.
const reserve = 65 * time.Second

// ask makes one request (p99 from .retryvet.yml).
func (c *Client) ask(ctx context.Context, prompt string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, strings.NewReader(prompt))
	if err != nil {
		return "", err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		return "", errRefused
	}
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Complete retries a refusal while the deadline leaves room: 72s needed.
func (c *Client) Complete(ctx context.Context, prompt string) (string, error) { // want Complete:`needs 72s on param 1 for llm.\(\*Client\).Complete \(p99 40s\)`
	out, err := c.ask(ctx, prompt)
	for i := 0; i < 2 && err != nil; i++ {
		wait := waits[i]
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+reserve {
			return "", err
		}
		time.Sleep(wait)
		out, err = c.ask(ctx, prompt)
	}
	return out, err
}
