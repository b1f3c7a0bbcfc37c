// Package transport: an own retry loop around an *http.Client whose
// Transport retries each request itself. Every attempt of the loop is a
// whole retry of the transport: 3 x 3 = 9 requests to a failing server.
package transport

import (
	"context"
	"errors"
	"log"
	"math/rand/v2"
	"net/http"
	"time"
)

// retryTransport sends a request up to 3 times.
type retryTransport struct{ next http.RoundTripper }

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var last error
	for i := 0; i < 3; i++ {
		resp, err := t.next.RoundTrip(req) // want `the request handed to transport.\(\*retryTransport\).RoundTrip \(a RoundTripper: its client's every request, POST and PUT bodies too\) is sent again by the retry loop at transport/transport.go:20 with the body the first attempt read to its end`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errors.New(resp.Status)
		}
		last = err
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(time.Duration(rand.Int64N(int64(time.Second)))):
		}
	}
	return nil, last
}

// logTransport only logs: no retry beneath the loop.
type logTransport struct{ next http.RoundTripper }

func (t logTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	log.Printf("%s %s", req.Method, req.URL)
	return t.next.RoundTrip(req)
}

type Client struct {
	hc    *http.Client
	plain *http.Client
}

func New() *Client {
	return &Client{
		hc:    &http.Client{Transport: &retryTransport{next: http.DefaultTransport}},
		plain: &http.Client{Transport: logTransport{next: http.DefaultTransport}},
	}
}

func (c *Client) Get(ctx context.Context, url string) (*http.Response, error) {
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at transport/transport.go:60 wraps retry loop \(3 attempts\) at transport/transport.go:20 \(through http.Client Transport transport.\(\*retryTransport\).RoundTrip\): up to 9 requests per call`
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		if !sleep(ctx, i) {
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("out of attempts")
}

// Quiet: the same loop over the client whose Transport only logs.
func (c *Client) GetPlain(ctx context.Context, url string) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.plain.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		if !sleep(ctx, i) {
			return nil, ctx.Err()
		}
	}
	return nil, errors.New("out of attempts")
}

// Quiet: one request through the retrying client, no loop around it.
func (c *Client) Once(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.hc.Do(req)
}

func sleep(ctx context.Context, i int) bool {
	t := time.NewTimer(time.Duration(rand.Int64N(int64(time.Second << i))))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
