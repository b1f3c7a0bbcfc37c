// Package ifacewait2 is ifacewait with a second pauser that honours the
// context: which one a client holds is not known here, so its wait is
// not said to ignore cancellation.
package ifacewait2

import (
	"context"
	"net/http"
	"time"
)

type pauser interface {
	Pause(ctx context.Context, attempt int)
}

type fixedPause struct{ d time.Duration }

func (f fixedPause) Pause(_ context.Context, attempt int) { time.Sleep(f.d * time.Duration(attempt)) }

type ctxPause struct{ d time.Duration }

func (f ctxPause) Pause(ctx context.Context, attempt int) {
	select {
	case <-ctx.Done():
	case <-time.After(f.d * time.Duration(attempt)):
	}
}

type Client struct {
	hc *http.Client
	p  pauser
}

func New(polite bool) *Client {
	if polite {
		return &Client{hc: http.DefaultClient, p: ctxPause{d: time.Second}}
	}
	return &Client{hc: http.DefaultClient, p: fixedPause{d: time.Second}}
}

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
		c.p.Pause(ctx, attempt)
	}
	return nil, lastErr
}
