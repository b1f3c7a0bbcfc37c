// Package glclient builds its retryablehttp client the way go-gitlab does:
// RetryMax 5 in the constructor, an option that a caller may pass to
// change it, and a Do whose local client is the shared one or, on one
// path, a copy of its settings with another classifier.
package glclient

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

type Client struct {
	client *retryablehttp.Client
}

type Option func(*Client)

// WithRetryMax runs only for a caller that passes it: RetryMax 5 stays
// the client's value otherwise.
func WithRetryMax(n int) Option {
	return func(c *Client) { c.client.RetryMax = n }
}

func New(opts ...Option) *Client {
	c := &Client{}
	c.client = &retryablehttp.Client{
		HTTPClient:   http.DefaultClient,
		CheckRetry:   retryablehttp.DefaultRetryPolicy,
		Backoff:      retryablehttp.DefaultBackoff,
		RetryWaitMin: 100 * time.Millisecond,
		RetryWaitMax: 400 * time.Millisecond,
		RetryMax:     5,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

type checkKey struct{}

func (c *Client) withCheck(cr retryablehttp.CheckRetry) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   c.client.HTTPClient,
		RetryWaitMin: c.client.RetryWaitMin,
		RetryWaitMax: c.client.RetryWaitMax,
		RetryMax:     c.client.RetryMax,
		CheckRetry:   cr,
		Backoff:      c.client.Backoff,
	}
}

// Do: the local is assigned twice; both values retry 5 times.
func (c *Client) Do(req *retryablehttp.Request) (*http.Response, error) {
	client := c.client
	if cr, ok := req.Context().Value(checkKey{}).(retryablehttp.CheckRetry); ok {
		client = c.withCheck(cr)
	}
	return client.Do(req)
}

func (c *Client) Get(ctx context.Context, url string) (*http.Response, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// DoNoRetryPath: on one path the copy does not retry at all; the two
// values disagree, so no count is claimed.
func (c *Client) DoNoRetryPath(req *retryablehttp.Request, once bool) (*http.Response, error) {
	client := c.client
	if once {
		client = &retryablehttp.Client{HTTPClient: c.client.HTTPClient, RetryMax: 0, CheckRetry: retryablehttp.DefaultRetryPolicy, Backoff: retryablehttp.DefaultBackoff}
	}
	return client.Do(req)
}

func (c *Client) GetMaybeOnce(ctx context.Context, url string, once bool) (*http.Response, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.DoNoRetryPath(req, once)
}
