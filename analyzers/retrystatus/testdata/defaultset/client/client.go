// Package client retries with options whose defaults another package
// sets, and with defaults of its own.
package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"example.com/t/defaultset/opts"
)

type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.code) }

type Client struct {
	hc     *http.Client
	opts   opts.Options
	server opts.Server
	preset opts.Preset
	local  Local
}

// Local is this package's own options type.
type Local struct {
	Codes []int
}

func New(hc *http.Client) *Client {
	return &Client{hc: hc, opts: opts.Default(), server: opts.DefaultServer(), preset: opts.Fast(),
		local: Local{Codes: []int{404, 500, 502, 503, 504}}}
}

func (c *Client) once(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		resp.Body.Close()
		return nil, &statusError{code: resp.StatusCode}
	}
	return resp, nil
}

func pause(ctx context.Context, attempt int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second << attempt)):
		return nil
	}
}

// get gives up on what the options' default does not list: it retries
// 400 and 413 by default.
func (c *Client) get(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= c.opts.MaxRetries; attempt++ {
		resp, err := c.once(ctx, url)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		var se *statusError
		if errors.As(err, &se) && !slices.Contains(c.opts.RetryOn, se.code) { // want `retry decision retries 400 \(bad request\), 413 \(payload too large\) \(in opts.Options.RetryOn by default at .*opts.go:19\)`
			return nil, err
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// getServer reads a default of 429 and every 5xx it names. Quiet.
func (c *Client) getServer(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.once(ctx, url)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		var se *statusError
		if errors.As(err, &se) && !slices.Contains(c.server.RetryOn, se.code) {
			return nil, err
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// getPreset reads a field its package writes twice: no default. Quiet.
func (c *Client) getPreset(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.once(ctx, url)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		var se *statusError
		if errors.As(err, &se) && !slices.Contains(c.preset.RetryOn, se.code) {
			return nil, err
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// getLocal reads this package's own exported default, which holds 404.
func (c *Client) getLocal(ctx context.Context, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.once(ctx, url)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		var se *statusError
		if errors.As(err, &se) && !slices.Contains(c.local.Codes, se.code) { // want `retry decision retries 404 \(not found\) \(in Local.Codes by default, set at .*client.go:36\)`
			return nil, err
		}
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}
