// Package breakerretry holds circuit breakers that a retry runs once per
// attempt, so that one request that keeps failing is enough failures in a
// row to open the breaker for every caller, beside retries that are too
// short to open it, retries run inside Execute, and breakers that open on
// a rule the model does not read.
package breakerretry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/eapache/go-resiliency/breaker"
	"github.com/sony/gobreaker/v2"

	"example.com/t/breakerretry/retryx"
)

func excluded(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

type Client struct {
	hc    *http.Client
	cb    *gobreaker.CircuitBreaker[*http.Response]
	tight *gobreaker.CircuitBreaker[*http.Response]
	ratio *gobreaker.CircuitBreaker[*http.Response]
}

func New() *Client {
	return &Client{
		hc: &http.Client{},
		cb: gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{
			Name:       "search",
			IsExcluded: excluded,
		}),
		tight: gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{
			Name:        "tight",
			IsExcluded:  excluded,
			ReadyToTrip: func(counts gobreaker.Counts) bool { return counts.ConsecutiveFailures > 2 },
		}),
		ratio: gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{
			Name:       "ratio",
			IsExcluded: excluded,
			ReadyToTrip: func(counts gobreaker.Counts) bool {
				return counts.Requests >= 20 && float64(counts.TotalFailures)/float64(counts.Requests) > 0.5
			},
		}),
	}
}

func (c *Client) send(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 {
		resp.Body.Close()
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return resp, nil
}

func pause(ctx context.Context, i int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(time.Second << i)):
		return nil
	}
}

// Get: 8 attempts, each one an Execute of a breaker that opens after 6
// failures in a row.
func (c *Client) Get(ctx context.Context, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 8; i++ {
		var resp *http.Response
		resp, err = c.cb.Execute(func() (*http.Response, error) { return c.send(ctx, url) }) // want `breaker "search" counts every attempt of the retry loop at breakerretry/breakerretry.go:85 as a failure: one request that fails all 8 attempts is 8 failures in a row, and it opens after more than 5 consecutive failures, so one caller's failing request switches the dependency off for every caller`
		if err == nil {
			return resp, nil
		}
		if werr := pause(ctx, i); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// Tight: retry-go's 3 attempts against a breaker that opens after 3.
func (c *Client) Tight(ctx context.Context, url string) (*http.Response, error) {
	return retry.DoWithData(func() (*http.Response, error) {
		return c.tight.Execute(func() (*http.Response, error) { return c.send(ctx, url) }) // want `breaker "tight" counts every attempt of the retry.DoWithData at breakerretry/breakerretry.go:100 as a failure: one request that fails all 3 attempts is 3 failures in a row, and it opens after 3 consecutive failures`
	}, retry.Attempts(3), retry.Context(ctx))
}

// fetch runs the breaker; Fetch retries fetch 10 times.
func (c *Client) fetch(ctx context.Context, url string) (*http.Response, error) {
	return c.cb.Execute(func() (*http.Response, error) { return c.send(ctx, url) }) // want `breaker "search" counts every attempt of the retry loop at breakerretry/breakerretry.go:112 \(through fetch\) as a failure: one request that fails all 10 attempts is 10 failures in a row`
}

func (c *Client) Fetch(ctx context.Context, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 10; i++ {
		var resp *http.Response
		if resp, err = c.fetch(ctx, url); err == nil {
			return resp, nil
		}
		if werr := pause(ctx, i); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// Short: 3 attempts never make the 6 failures in a row that open it.
func (c *Client) Short(ctx context.Context, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		resp, err = c.cb.Execute(func() (*http.Response, error) { return c.send(ctx, url) })
		if err == nil {
			return resp, nil
		}
		if werr := pause(ctx, i); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// Inside: the retry runs inside Execute, so a request counts once.
func (c *Client) Inside(ctx context.Context, url string) (*http.Response, error) {
	return c.cb.Execute(func() (*http.Response, error) {
		var err error
		for i := 0; i < 8; i++ {
			var resp *http.Response
			if resp, err = c.send(ctx, url); err == nil {
				return resp, nil
			}
			if werr := pause(ctx, i); werr != nil {
				return nil, werr
			}
		}
		return nil, err
	})
}

// Ratio: the breaker opens on a failure ratio over 20 requests, a rule
// whose bearing on one request's attempts is not read.
func (c *Client) Ratio(ctx context.Context, url string) (*http.Response, error) {
	var err error
	for i := 0; i < 8; i++ {
		var resp *http.Response
		resp, err = c.ratio.Execute(func() (*http.Response, error) { return c.send(ctx, url) })
		if err == nil {
			return resp, nil
		}
		if werr := pause(ctx, i); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// payments opens after 4 errors of its work (go-resiliency's
// errorThreshold); the work leaves context errors out.
var payments = breaker.New(4, 1, time.Minute)

// Pay: 5 attempts, each a Run of a breaker that opens after 4 errors.
func (c *Client) Pay(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = payments.Run(func() error { // want `the breaker counts every attempt of the retry loop at breakerretry/breakerretry.go:181 as a failure: one request that fails all 5 attempts is 5 failures in a row, and it opens after 4 failures, .* or make it need more failures to open than the retry makes`
			resp, err := c.send(ctx, url)
			if err != nil {
				if excluded(err) {
					return nil
				}
				return err
			}
			return resp.Body.Close()
		})
		if err == nil {
			return nil
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Refund: 3 attempts never make the 4 errors that open it.
func (c *Client) Refund(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		err = payments.Run(func() error {
			resp, err := c.send(ctx, url)
			if err != nil {
				if excluded(err) {
					return nil
				}
				return err
			}
			return resp.Body.Close()
		})
		if err == nil {
			return nil
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Sync hands the breaker's call to the project's helper, which makes 8
// attempts: each one is a failure of the breaker that opens after 6.
func (c *Client) Sync(ctx context.Context, url string) error {
	return retryx.Eight(ctx, func() error {
		resp, err := c.cb.Execute(func() (*http.Response, error) { return c.send(ctx, url) }) // want `breaker "search" counts every attempt of the retry helper retryx.Eight at breakerretry/breakerretry.go:229 as a failure: one request that fails all 8 attempts is 8 failures in a row`
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

// Quiet: the helper's 2 attempts never make the 6 failures that open it.
func (c *Client) Ping(ctx context.Context, url string) error {
	return retryx.Twice(ctx, func() error {
		resp, err := c.cb.Execute(func() (*http.Response, error) { return c.send(ctx, url) })
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}
