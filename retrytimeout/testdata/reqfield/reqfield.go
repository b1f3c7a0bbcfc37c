// Package reqfield: the caller's context travels inside the client's own
// request type (a field holding a retryablehttp.Request). A retry whose wait
// ignores it keeps a cancelled caller waiting; a field that only ever holds
// a request built without a context (or whose WithContext drops the copy)
// carries Background, and a wait that ignores it ignores nothing.
package reqfield

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Request stores the context it is given.
type Request struct {
	method  string
	request *retryablehttp.Request
}

func NewRequest(method, url string) (*Request, error) {
	r, err := retryablehttp.NewRequest(method, url, nil)
	if err != nil {
		return nil, err
	}
	return &Request{method: method, request: r}, nil
}

// WithContext keeps the copy retryablehttp returns.
func (r *Request) WithContext(ctx context.Context) {
	r.request = r.request.WithContext(ctx)
}

type Client struct {
	client *retryablehttp.Client
}

func backoff(i int) time.Duration { return time.Second << i }

// innerDo makes one attempt, and on a 503 waits and answers "retry".
func (c *Client) innerDo(req *Request, i int) (*http.Response, bool, error) {
	resp, err := c.client.Do(req.request)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode == http.StatusServiceUnavailable && i < 3 {
		resp.Body.Close()
		time.Sleep(backoff(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.request.Context\(\) is done`
		return resp, true, nil
	}
	return resp, false, nil
}

func (c *Client) Do(req *Request) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, retry, err := c.innerDo(req, i)
		if retry {
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}

func (c *Client) QueryWithContext(ctx context.Context, url string) (*http.Response, error) {
	req, err := NewRequest(http.MethodGet, url)
	if err != nil {
		return nil, err
	}
	req.WithContext(ctx)
	return c.Do(req)
}

// DoInLoop waits in the loop itself, on a request built before it.
func (c *Client) DoInLoop(req *Request) (*http.Response, error) {
	var lastErr error
	for i := 0; i < 4; i++ {
		resp, err := c.client.Do(req.request)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		time.Sleep(backoff(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.request.Context\(\) is done`
	}
	return nil, lastErr
}

// DroppedRequest's WithContext discards the copy retryablehttp returns, so
// its request keeps the Background that NewRequest gave it: the waits below
// ignore no context that can be done. Quiet.
type DroppedRequest struct {
	request *retryablehttp.Request
}

func NewDroppedRequest(method, url string) (*DroppedRequest, error) {
	r := &DroppedRequest{}
	var err error
	r.request, err = retryablehttp.NewRequest(method, url, nil)
	return r, err
}

func (r *DroppedRequest) WithContext(ctx context.Context) {
	r.request.WithContext(ctx)
}

func (c *Client) innerDoDropped(req *DroppedRequest, i int) (*http.Response, bool, error) {
	resp, err := c.client.Do(req.request)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode == http.StatusServiceUnavailable && i < 3 {
		resp.Body.Close()
		time.Sleep(backoff(i))
		return resp, true, nil
	}
	return resp, false, nil
}

func (c *Client) DoDropped(req *DroppedRequest) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, retry, err := c.innerDoDropped(req, i)
		if retry {
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}

// BackgroundRequest holds a plain *http.Request only ever built with
// context.Background(): its waits are not said to ignore a context, and
// the retry is not attempt-only (no caller's deadline reaches it); its
// missing jitter stands.
type BackgroundRequest struct {
	req *http.Request
}

func NewBackgroundRequest(url string) (*BackgroundRequest, error) {
	r, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return &BackgroundRequest{req: r}, nil
}

func (c *Client) DoBackground(br *BackgroundRequest) (*http.Response, error) {
	var lastErr error
	for i := 0; i < 4; i++ {
		resp, err := http.DefaultClient.Do(br.req)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		time.Sleep(backoff(i)) // want `no jitter: retry loop waits 1s, 2s, 4s`
	}
	return nil, lastErr
}

// The attempt takes the request out of the wrapper through a method.
func (r *DroppedRequest) build() (*retryablehttp.Request, error) {
	if r.request == nil {
		return nil, http.ErrMissingFile
	}
	return r.request, nil
}

func (r *Request) build() (*retryablehttp.Request, error) { return r.request, nil }

// innerDoBuilt waits beside a request the wrapper gave out: the dropped
// one still carries Background, so the wait ignores nothing. Quiet.
func (c *Client) innerDoBuilt(req *DroppedRequest, i int) (*http.Response, bool, error) {
	hr, err := req.build()
	if err != nil {
		return nil, false, err
	}
	resp, err := c.client.Do(hr)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode == http.StatusServiceUnavailable && i < 3 {
		resp.Body.Close()
		time.Sleep(backoff(i))
		return resp, true, nil
	}
	return resp, false, nil
}

func (c *Client) DoBuilt(req *DroppedRequest) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, retry, err := c.innerDoBuilt(req, i)
		if retry {
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}

// The same with a wrapper that keeps its context: reported, by the
// request the wrapper gave out.
func (c *Client) innerDoKept(req *Request, i int) (*http.Response, bool, error) {
	hr, err := req.build()
	if err != nil {
		return nil, false, err
	}
	resp, err := c.client.Do(hr)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode == http.StatusServiceUnavailable && i < 3 {
		resp.Body.Close()
		time.Sleep(backoff(i)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after hr.Context\(\) is done`
		return resp, true, nil
	}
	return resp, false, nil
}

func (c *Client) DoKept(req *Request) (*http.Response, error) {
	for i := 0; ; i++ {
		resp, retry, err := c.innerDoKept(req, i)
		if retry {
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}
