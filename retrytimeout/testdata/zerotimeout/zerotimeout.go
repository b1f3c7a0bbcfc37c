// Package zerotimeout: a context.WithTimeout on a config field the
// package treats as no limit when it is zero is done at once for 0.
package zerotimeout

import (
	"context"
	"net/http"
	"time"
)

type Options struct {
	Timeout  time.Duration
	Deadline time.Duration
	Budget   time.Duration
}

type Client struct {
	hc   *http.Client
	opts Options
}

func New(opts Options) *Client {
	hc := &http.Client{}
	if opts.Timeout > 0 {
		hc.Timeout = opts.Timeout
	}
	if opts.Budget == 0 {
		opts.Budget = 30 * time.Second
	}
	return &Client{hc: hc, opts: opts}
}

func (c *Client) Do(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.Timeout) // want `context.WithTimeout with c.opts.Timeout, which the package treats as no limit when it is 0 \(zerotimeout/zerotimeout.go:24\): with Timeout 0 this context is done before the first call`
	defer cancel()
	return c.hc.Do(req.WithContext(ctx))
}

// Guarded uses the field only when it is positive: quiet.
func (c *Client) Guarded(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if c.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	return c.hc.Do(req.WithContext(ctx))
}

// Early returns on a zero field first: quiet.
func (c *Client) Early(req *http.Request) (*http.Response, error) {
	if c.opts.Timeout <= 0 {
		return c.hc.Do(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), c.opts.Timeout)
	defer cancel()
	return c.hc.Do(req.WithContext(ctx))
}

// Budget is defaulted when zero, so it is never 0 here: quiet.
func (c *Client) Budgeted(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), c.opts.Budget)
	defer cancel()
	return c.hc.Do(req.WithContext(ctx))
}

// Deadline is never tested against zero: nothing says 0 means no limit;
// quiet.
func (c *Client) Dead(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), c.opts.Deadline)
	defer cancel()
	return c.hc.Do(req.WithContext(ctx))
}

// Wrap builds the timeout into a closure under the test: quiet.
func (c *Client) Wrap(op func(context.Context) error) func(context.Context) error {
	if c.opts.Timeout > 0 {
		inner := op
		op = func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
			defer cancel()
			return inner(ctx)
		}
	}
	return op
}
