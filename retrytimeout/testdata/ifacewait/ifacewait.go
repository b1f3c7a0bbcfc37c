// Package ifacewait holds retries that wait through an interface: a
// client's pauser field, whose one implementation in the package sleeps,
// waits as that implementation does; with two implementations in the
// package the call could be either, and nothing is said.
package ifacewait

import (
	"context"
	"net/http"
	"time"
)

type pauser interface {
	Pause(attempt int)
}

type fixedPause struct{ d time.Duration }

func (f fixedPause) Pause(attempt int) { time.Sleep(f.d * time.Duration(attempt)) }

type Client struct {
	hc *http.Client
	p  pauser
}

func New() *Client { return &Client{hc: http.DefaultClient, p: fixedPause{d: time.Second}} }

func (c *Client) Get(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		c.p.Pause(attempt) // want `wait ignores cancellation`
	}
	return nil, lastErr
}
