// Package cancelsrc: waits whose cancellation comes from somewhere other
// than a context variable in scope (a request value's field, a project's
// own context-like type, a func value that sleeps), beside their quiet
// lookalikes.
package cancelsrc

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"time"
)

// A generated API client: each request value carries the caller's
// context in a field, and Execute retries with a sleep that ignores it.
type Client struct {
	hc   *http.Client
	base string
}

type ApiListRequest struct {
	ctx    context.Context
	client *Client
	limit  int
}

func (c *Client) List(ctx context.Context) ApiListRequest {
	return ApiListRequest{ctx: ctx, client: c}
}

func (r ApiListRequest) Limit(n int) ApiListRequest { r.limit = n; return r }

func jittered(i int) time.Duration {
	d := time.Second << i
	return d/2 + time.Duration(rand.Int63n(int64(d/2)))
}

var errStatus = errors.New("unexpected status")

func (r ApiListRequest) Execute() (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, r.client.base+"/items", nil)
		if err != nil {
			return nil, err
		}
		resp, err := r.client.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after r.ctx is done; the retry is also attempt-only: retry loop makes 4 attempts.*; wait in a select on r.ctx.Done\(\) and a timer`
	}
	return nil, lastErr
}

// The same Execute waiting in a select on the request's context: quiet.
type ApiGetRequest struct {
	ctx    context.Context
	client *Client
	id     string
}

func (c *Client) Get(ctx context.Context, id string) ApiGetRequest {
	return ApiGetRequest{ctx: ctx, client: c, id: id}
}

func (r ApiGetRequest) Execute() (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, r.client.base+"/items/"+r.id, nil)
		if err != nil {
			return nil, err
		}
		resp, err := r.client.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		select {
		case <-r.ctx.Done():
			return nil, r.ctx.Err()
		case <-time.After(jittered(attempt)):
		}
	}
	return nil, lastErr
}

// A request value whose context is only ever Background: the sleep
// ignores nothing that can be done. Quiet.
type ApiPingRequest struct {
	ctx    context.Context
	client *Client
}

func (c *Client) Ping() ApiPingRequest {
	return ApiPingRequest{ctx: context.Background(), client: c}
}

func (r ApiPingRequest) Execute() (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, r.client.base+"/ping", nil)
		if err != nil {
			return nil, err
		}
		resp, err := r.client.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt))
	}
	return nil, lastErr
}

// A request value with no context at all: nothing to cancel it. Quiet.
type ApiStatusRequest struct {
	client *Client
}

func (r ApiStatusRequest) Execute() (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := r.client.hc.Get(r.client.base + "/status")
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt))
	}
	return nil, lastErr
}
