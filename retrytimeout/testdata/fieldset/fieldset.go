// Package fieldset holds a client whose retried statuses are a set in a
// struct field set by the constructor, with a linear backoff from another
// field and no jitter, beside the same client with jitter and Retry-After.
// (A 429 in such a set is not seen by the retry-after check, which reads
// direct comparisons only; the set holds 5xx codes here.)
package fieldset

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

var errGaveUp = errors.New("gave up")

// Client keeps its retry policy in fields.
type Client struct {
	hc            *http.Client
	retryOnStatus map[int]bool
	maxRetries    int
	backoff       time.Duration
}

// New sets the policy once.
func New() *Client {
	return &Client{
		hc:            http.DefaultClient,
		retryOnStatus: map[int]bool{502: true, 503: true, 504: true},
		maxRetries:    3,
		backoff:       time.Second,
	}
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Do waits 1s, 2s, 3s the same for every caller and every status.
func (c *Client) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !c.retryOnStatus[resp.StatusCode] {
			return resp, nil
		}
		resp.Body.Close()
		if err := c.wait(ctx, c.backoff*time.Duration(attempt+1)); err != nil { // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
			return nil, err
		}
	}
	return nil, errGaveUp
}

// DoSpread draws each wait and lets Retry-After raise it. Quiet.
func (c *Client) DoSpread(ctx context.Context, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err != nil {
			return nil, err
		}
		if !c.retryOnStatus[resp.StatusCode] {
			return resp, nil
		}
		d := c.backoff * time.Duration(attempt+1)
		d = d/2 + rand.N(d/2)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && time.Duration(s)*time.Second > d {
			d = time.Duration(s) * time.Second
		}
		resp.Body.Close()
		if err := c.wait(ctx, d); err != nil {
			return nil, err
		}
	}
	return nil, errGaveUp
}
