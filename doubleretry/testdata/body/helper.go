package body

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// A generated client: requests are built by a helper of the package and
// handed, with the send, to a retrier that retries by recursion.

type sendFunc func(*http.Request) (*http.Response, error)

type retrier struct{ attempts int }

func (r *retrier) Run(send sendFunc, req *http.Request) (*http.Response, error) {
	return r.run(send, req, 0)
}

func (r *retrier) run(send sendFunc, req *http.Request, attempt int) (*http.Response, error) {
	if attempt >= r.attempts {
		return nil, errors.New("attempts exhausted")
	}
	resp, err := send(req) // want `the POST request built at body/helper.go:\d+ is sent again by the retry by recursion at body/helper.go:\d+ with the body the first attempt read to its end`
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 {
		resp.Body.Close()
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(time.Duration(rand.Int64N(int64(time.Second << attempt)))):
		}
		return r.run(send, req, attempt+1)
	}
	return resp, nil
}

// newJSONRequest is the client's request helper.
func newJSONRequest(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

type apiClient struct {
	hc      *http.Client
	retrier *retrier
}

// Create posts a JSON body through the retrier.
func (c *apiClient) Create(ctx context.Context, url string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := newJSONRequest(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := c.retrier.Run(c.hc.Do, req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// rewinding gives the request its body again before each attempt: quiet.
type rewinding struct{ attempts int }

func (r *rewinding) run(send sendFunc, req *http.Request, attempt int) (*http.Response, error) {
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		req.Body = body
	}
	resp, err := send(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 && attempt+1 < r.attempts {
		resp.Body.Close()
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second << attempt))))
		return r.run(send, req, attempt+1)
	}
	return resp, nil
}

// Update sends its body through the rewinding retrier.
func (c *apiClient) Update(ctx context.Context, url string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := newJSONRequest(ctx, http.MethodPut, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := (&rewinding{attempts: 3}).run(c.hc.Do, req, 0)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Fetch is a GET built by the same helper with no body, through a
// retrier of its own: nothing to drain. Quiet.
type getRetrier struct{ attempts int }

func (r *getRetrier) run(send sendFunc, req *http.Request, attempt int) (*http.Response, error) {
	resp, err := send(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 && attempt+1 < r.attempts {
		resp.Body.Close()
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second << attempt))))
		return r.run(send, req, attempt+1)
	}
	return resp, nil
}

func (c *apiClient) Fetch(ctx context.Context, url string) error {
	req, err := newJSONRequest(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := (&getRetrier{attempts: 3}).run(c.hc.Do, req, 0)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// newPayloadRequest marshals a payload into the body only when there is
// one: a call that hands nil builds a request with no body.
func newPayloadRequest(url, method string, payload any) *http.Request {
	var body io.Reader
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			panic(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		panic(err)
	}
	return req
}

// Quiet: the GET is built with no payload, so there is no body to read.
func getSchema(c *http.Client, url string) (*http.Response, error) {
	req := newPayloadRequest(url+"/schema", http.MethodGet, nil)
	var err error
	for i := 0; i < 5; i++ {
		var resp *http.Response
		if resp, err = c.Do(req); err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
	}
	return nil, err
}

// Reported: the same helper with a payload.
func putSchema(c *http.Client, url string, schema map[string]string) (*http.Response, error) {
	req := newPayloadRequest(url+"/schema", http.MethodPut, schema)
	var err error
	for i := 0; i < 5; i++ {
		var resp *http.Response
		if resp, err = c.Do(req); err == nil && resp.StatusCode < 500 { // want `the PUT request built at body/helper.go:\d+ is sent again by the retry loop at body/helper.go:\d+ with the body the first attempt read to its end`
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(rand.Int64N(int64(time.Second))))
	}
	return nil, err
}
